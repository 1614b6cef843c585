// Which due jobs a worker claims when slots free up, so that no workspace can hold every slot and
// long-running work cannot starve short work. The queue is shared by every workspace: claiming in
// plain age order let one workspace's three endless syncs hold every slot while another
// workspace's upload waited (issue 32).
//
// The rules, applied to the slots of one lease owner (one process):
// - a workspace holds at most `perWorkspace` running jobs;
// - `bulk` kinds (syncs, imports: they can run for hours) hold at most `bulkSlots` running jobs, so
//   the other slots are always there for short, interactive work (extraction, onboarding);
// - among what is left, the workspace with the fewest running jobs goes first (round robin), and
//   within a workspace, and between workspaces running as many, the oldest due job.
//
// The candidates are read with plain SQL every database Engram may run on has: a recursive CTE
// walks the workspaces that have pending jobs through the (status, workspace_id, kind, run_at)
// index, one index seek each, and a correlated subquery takes at most a few due jobs of each kind
// of each. Its cost
// grows with the number of workspaces waiting, not with the number of jobs waiting (a push of
// 100,000 files is still a few seeks).
import type { JobRow } from './job'

/** How an owner's free slots may be filled. */
export interface ClaimPolicy {
  /** Kinds that run long (syncs, imports); the others are interactive. */
  bulk: readonly string[]
  /** Most running jobs of this owner's that may be bulk. */
  bulkSlots: number
  /** Most running jobs of this owner's from one workspace. */
  perWorkspace: number
}

/** No caps: the plain oldest-first claim. */
export const OPEN_POLICY: ClaimPolicy = {
  bulk: [],
  bulkSlots: Number.POSITIVE_INFINITY,
  perWorkspace: Number.POSITIVE_INFINITY,
}

/**
 * A due pending job as the choice sees it (the row itself is read by the claim's UPDATE), with its
 * `seq`: insertion order, the tie-break between jobs due at the same time.
 */
export type Candidate = Pick<JobRow, 'id' | 'workspaceId' | 'kind' | 'runAt'> & {
  seq: number
}

/** What the owner runs already: jobs by workspace, and how many are bulk. */
export interface Running {
  byWorkspace: Map<string, number>
  bulk: number
}

const older = (a: Candidate, b: Candidate) => a.runAt - b.runAt || a.seq - b.seq

/**
 * Picks up to `limit` candidates by the rules above. Pure: it reads `running` and the candidates
 * and returns ids in the order they were chosen.
 */
export function pickFairly(
  candidates: readonly Candidate[],
  running: Running,
  policy: ClaimPolicy,
  limit: number,
): string[] {
  const bulk = new Set(policy.bulk)
  const queues = new Map<string, { interactive: Candidate[]; bulk: Candidate[] }>()
  for (const c of [...candidates].sort(older)) {
    const q = queues.get(c.workspaceId) ?? { interactive: [], bulk: [] }
    queues.set(c.workspaceId, q)
    if (bulk.has(c.kind)) q.bulk.push(c)
    else q.interactive.push(c)
  }
  const held = new Map(running.byWorkspace)
  let bulkHeld = running.bulk
  const chosen: string[] = []
  while (chosen.length < limit) {
    let best: { ws: string; head: Candidate; held: number } | null = null
    for (const [ws, q] of queues) {
      const n = held.get(ws) ?? 0
      if (n >= policy.perWorkspace) continue
      const bulkHead = bulkHeld < policy.bulkSlots ? q.bulk[0] : undefined
      const head = [q.interactive[0], bulkHead].filter((c): c is Candidate => c !== undefined).sort(older)[0]
      if (!head) continue
      if (!best || n < best.held || (n === best.held && older(head, best.head) < 0))
        best = { ws, head, held: n }
    }
    if (!best) break
    const q = queues.get(best.ws)!
    if (bulk.has(best.head.kind)) {
      q.bulk.shift()
      bulkHeld++
    } else q.interactive.shift()
    held.set(best.ws, best.held + 1)
    chosen.push(best.head.id)
  }
  return chosen
}
