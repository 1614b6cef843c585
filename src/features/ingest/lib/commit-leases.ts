import { HeldLease } from '../../../platform/leases/held-lease'
import type { Registrar } from '../ingest.registrar'
import type { IngestDeps } from '../ingest.types'

/**
 * How long a push commit's lease lasts unless renewed; renewed before each batch (a third of it
 * gone), so a batch may take twenty seconds before another process may end the commit as interrupted.
 */
export const COMMIT_LEASE_MS = 30_000

/** The named lease a push run's commit holds while a process registers it. */
export function commitLease(runId: string): string {
  return `ingest.push-commit:${runId}`
}

const INTERRUPTED = {
  status: 'failed' as const,
  error:
    'The server stopped while this commit was being registered; the files registered before are kept. Push again to finish.',
}

/** What holding and closing commits work with. */
export type CommitLeaseDeps = Pick<IngestDeps, 'clock' | 'log'> & { registrar: Registrar }

/**
 * Takes the lease of a push run about to be opened (its id is new, so nobody holds it), marking the
 * commit alive for every process on the database while this one registers it.
 */
export async function holdCommit(
  deps: Pick<CommitLeaseDeps, 'clock' | 'registrar'>,
  runId: string,
): Promise<HeldLease> {
  const { registrar } = deps
  const held = await HeldLease.take(
    registrar.leases,
    deps.clock,
    commitLease(runId),
    registrar.leaseOwner(),
    COMMIT_LEASE_MS,
  )
  if (!held) throw new Error(`The lease of push run ${runId} is held by another process`)
  return held
}

/**
 * Ends as failed the push runs whose commit no live process is registering: neither this one's
 * nor one whose lease another process still holds. Each is taken over first (its lease taken by
 * this process), so a process that only seemed gone finds its lease lost at its next batch and
 * stops instead of registering into an ended run. What is still held elsewhere is spared; the
 * returned `heldUntil` says when the last such lease lapses unless renewed (null: none).
 */
export async function closeInterruptedCommits(
  deps: CommitLeaseDeps,
): Promise<{ closed: number; heldUntil: number | null }> {
  const { registrar } = deps
  const owner = registrar.leaseOwner()
  let heldUntil: number | null = null
  let closed = 0
  for (const runId of await registrar.repo.openCommits()) {
    if (registrar.committing.has(runId)) continue
    const name = commitLease(runId)
    if (!(await registrar.leases.take(name, owner, COMMIT_LEASE_MS))) {
      const until = (await registrar.leases.holder(name))?.until ?? registrar.now()
      heldUntil = Math.max(heldUntil ?? 0, until)
      continue
    }
    // Only while its listing is open: a commit that ended just before its lease was taken stays ended.
    if (await registrar.repo.closeListing(runId, registrar.now(), INTERRUPTED, { openOnly: true })) closed++
    await registrar.leases.release(name, owner)
  }
  if (closed > 0) deps.log.warn('push commits cut short by a stop were ended as failed', { runs: closed })
  return { closed, heldUntil }
}
