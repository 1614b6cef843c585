import { isTerminal } from '../../../platform/jobs/queue'
import { HeldLease } from '../../../platform/leases/held-lease'
import type { DocumentPurger, DocumentRow } from '../../corpora/corpora.service'
import type { Registrar } from '../ingest.registrar'
import { EXTRACT_JOB, type ExtractPayload, type IngestDeps } from '../ingest.types'
import { closeInterruptedCommits } from './commit-leases'
import { corpusOfKey, corpusPrefix } from './keys'

/** What the purger and the orphan sweep work with. */
export type SweepDeps = Pick<
  IngestDeps,
  'store' | 'clock' | 'config' | 'objects' | 'corpora' | 'queue' | 'log'
> & {
  registrar: Registrar
}

/**
 * Forgets what ingestion keeps for deleted (or replaced) documents: the raw object once no row of
 * the base uses it any more, the text sidecars, and the extraction jobs (a job that will never run
 * no longer counts as pending in its sync run). A deleted base loses its whole object prefix.
 */
export function objectsPurger(deps: SweepDeps): DocumentPurger {
  const { corpora, objects, registrar } = deps
  return {
    async purgeDocuments(workspaceId, corpusId, rows) {
      await forgetJobs(deps, workspaceId, corpusId, rows)
      // A deleted base loses everything at once in purgeCorpus; no need to go key by key.
      if (!(await corpora.exists(workspaceId, corpusId))) return
      const keys = new Set<string>()
      for (const r of rows) {
        if (r.raw_key) keys.add(r.raw_key)
        if (r.text_key) keys.add(r.text_key)
      }
      for (const key of keys) await registrar.dropIfUnused(key)
    },
    async purgeCorpus(workspaceId, corpusId) {
      await objects.deletePrefix(corpusPrefix(workspaceId, corpusId))
    },
  }
}

/**
 * Drops the extraction jobs of documents that are gone, settling their runs: a unit a document
 * (its jobs' settles and their delete together).
 */
async function forgetJobs(
  deps: SweepDeps,
  workspaceId: string,
  corpusId: string,
  rows: DocumentRow[],
): Promise<void> {
  const { corpora, queue, registrar, store } = deps
  const now = registrar.now()
  for (const r of rows) {
    // A replaced document keeps its row; its old job finds new content and settles itself.
    if (r.parent_id !== null || (await corpora.document(corpusId, r.id))) continue
    const jobs = await queue.repo.listBySubject(workspaceId, r.id, [EXTRACT_JOB])
    if (jobs.length === 0) continue
    await store.unit(async () => {
      for (const j of jobs) {
        if (!isTerminal(j.status))
          await registrar.repo.settle((j.payload as unknown as ExtractPayload).run_id, null, now)
      }
      // A running job loses its row too: it finishes into nothing and its settle hook does not fire.
      await queue.repo.deleteBySubject(workspaceId, r.id)
    })
  }
}

/** The named lease the orphan sweep runs under: of the processes starting at once, one sweeps. */
export const SWEEP_LEASE = 'ingest.orphan-sweep'
/** How long the sweep's lease lasts unless renewed (renewed as it goes, every third of it). */
const SWEEP_LEASE_MS = 5 * 60_000

/** Options of one sweep. */
export interface OrphanSweepOptions {
  /**
   * Spare objects last written less than this long ago: another process may have stored a file
   * whose row it has not committed yet (its in-flight set is its own). By default
   * `ingest.orphan_grace_seconds` (an hour: requests and push commits take seconds to minutes, and
   * clocks of hosts differ by far less); 0: no object is spared for its age.
   */
  graceMs?: number
}

/** What a sweep did; `skipped` when another process holds the sweep's lease (it sweeps). */
export interface OrphanSweep {
  removed: number
  uploadsExpired: number
  skipped?: true
  /** When a push commit spared because another process holds its lease lapses unless renewed (null: none). */
  commitsHeldUntil?: number | null
}

/**
 * Removes objects of the corpora area that no row references: leftovers of a crash between storing
 * a file and committing its row, old versions whose deletion was interrupted, pushed content whose
 * commit never came (once its upload has expired), and everything of a base that no longer exists.
 * Objects of this process's requests in flight are spared, and every object younger than the grace
 * (another process's may be in flight). Push runs a stop left open part way through their commit
 * are ended first (commit-leases.ts). Runs in the one process that takes the sweep's lease.
 */
export async function sweepOrphans(deps: SweepDeps, opts: OrphanSweepOptions = {}): Promise<OrphanSweep> {
  const { registrar } = deps
  const lease = await HeldLease.take(
    registrar.leases,
    deps.clock,
    SWEEP_LEASE,
    registrar.leaseOwner(),
    SWEEP_LEASE_MS,
  )
  if (!lease) return { removed: 0, uploadsExpired: 0, skipped: true }
  try {
    const commits = await closeInterruptedCommits(deps)
    const uploadsExpired = await registrar.uploads.deleteExpiredUploads(registrar.now())
    const grace = opts.graceMs ?? deps.config.orphan_grace_seconds * 1000
    const removed = await removeOrphans(deps, lease, grace)
    return { removed, uploadsExpired, commitsHeldUntil: commits.heldUntil }
  } finally {
    await lease.release()
  }
}

/** Lists the corpora area and removes what nothing uses and the grace does not spare; how many. */
async function removeOrphans(deps: SweepDeps, lease: HeldLease, graceMs: number): Promise<number> {
  const { objects, corpora, log, registrar } = deps
  // Written after the cutoff: spared (with no grace, nothing is spared for its age).
  const cutoff = graceMs > 0 ? registrar.now() - graceMs : Number.POSITIVE_INFINITY
  const bases = new Map<string, boolean>()
  const orphans: string[] = []
  for await (const o of objects.list('')) {
    await lease.keep()
    const where = corpusOfKey(o.key)
    if (!where || registrar.inflight.has(o.key) || o.lastModified.getTime() > cutoff) continue
    const baseKey = `${where.workspaceId}/${where.corpusId}`
    let exists = bases.get(baseKey)
    if (exists === undefined) {
      exists = await corpora.exists(where.workspaceId, where.corpusId)
      bases.set(baseKey, exists)
    }
    if (!exists || !(await corpora.keyInUse(o.key))) orphans.push(o.key)
  }
  let removed = 0
  // Deleted after the listing, each checked again: a request may have committed it meanwhile.
  for (const key of orphans) {
    await lease.keep()
    try {
      if (await registrar.dropIfUnused(key)) removed++
    } catch (e) {
      log.warn('orphan sweep could not remove an object', { key, error: (e as Error).message })
    }
  }
  return removed
}
