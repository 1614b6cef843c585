// The plan's `documents` and `storage_bytes` caps on every way documents come in (upload, push,
// upsert, a source's sync or import): all of them register through the Registrar, which asks here
// inside its writing unit, after `holdCaps`.

import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { ApiError } from '../../platform/errors/errors'
import type { CorporaService, DocumentRow } from '../corpora/corpora.service'
import type { PlansService } from '../plans/plans.service'
import type { Incoming } from './ingest.types'

/** What the caps are checked with. */
export interface CapsDeps {
  corpora: Pick<CorporaService, 'usage' | 'documentByPath' | 'keyInUse'>
  plans: Pick<PlansService, 'capsOf' | 'ensureRoom'>
}

/** What a workspace holds against its caps. */
export interface Holdings {
  /** Parent documents of all its bases (sections are parts of a file, not counted). */
  documents: number
  /**
   * Bytes its documents hold in the object store (raw files, each content once per base, and their
   * extracted text): the bases' counters, kept by triggers in the same transaction as every write.
   */
  bytes: number
}

/**
 * Makes the caps' count-then-write in the calling unit the workspace's only one until it ends: on
 * PostgreSQL a transaction-scoped advisory lock on the workspace (two units registering into one
 * workspace at once would otherwise both count the same holdings and both take the last unit); on
 * SQLite nothing, a unit holds the one write lock. Called first in the unit, before `holdings`.
 */
export function holdCaps(store: Store, workspaceId: string): Promise<void> {
  return holdInUnit(store, `caps:${workspaceId}`)
}

/** What the workspace's bases hold now; inside a unit, with its own writes. */
export async function holdings(d: CapsDeps, workspaceId: string): Promise<Holdings> {
  let documents = 0
  let bytes = 0
  for (const b of await d.corpora.usage(workspaceId)) {
    documents += b.documents
    bytes += b.storageBytes
  }
  return { documents, bytes }
}

/** Whether the workspace's plan caps documents or storage at all (an unlimited plan skips the counting). */
export async function capped(d: CapsDeps, workspaceId: string): Promise<boolean> {
  const caps = await d.plans.capsOf(workspaceId)
  return caps !== undefined && (caps.documents !== null || caps.storage_bytes !== null)
}

/**
 * Refuses (403 `plan_limit_reached`) a change from `before` to `after` that takes the workspace
 * past a cap: documents by the new paths it added (less `freed`, the documents the same batch
 * deletes after it), storage by the bytes it added (a replacement counts its size delta; content the base
 * already held is shared, not counted again). A batch that only replaces documents with content no
 * larger never refuses on storage, even when the old content stays held by another document.
 *
 * Called inside the registering unit after its writes and before its commit, with `holdCaps`
 * taken before the first count, so two requests cannot both take the last unit (on SQLite the unit
 * holds the one write lock; on PostgreSQL the advisory lock orders them).
 */
export async function ensureRoomFor(
  d: CapsDeps,
  workspaceId: string,
  change: { before: Holdings; after: Holdings; freed?: number; noLarger?: boolean },
): Promise<void> {
  const { before, after, freed = 0 } = change
  await d.plans.ensureRoom(
    workspaceId,
    'documents',
    before.documents,
    after.documents - before.documents - freed,
  )
  if (!change.noLarger)
    await d.plans.ensureRoom(workspaceId, 'storage_bytes', before.bytes, after.bytes - before.bytes)
}

/**
 * A cheap check ahead of the work (the registering transaction stays the authority): refuses when
 * adding `documents` documents and `bytes` bytes to what the workspace holds now passes a cap.
 * `{documents: 1, bytes: 1}` refuses a workspace that is full already.
 */
export async function ensureRoomAhead(
  d: CapsDeps,
  workspaceId: string,
  adding: { documents: number; bytes: number },
): Promise<void> {
  if (!(await capped(d, workspaceId))) return
  const h = await holdings(d, workspaceId)
  await d.plans.ensureRoom(workspaceId, 'documents', h.documents, adding.documents)
  await d.plans.ensureRoom(workspaceId, 'storage_bytes', h.bytes, adding.bytes)
}

/**
 * For an upload read part by part: called with each part's path before its body is read, refuses
 * the first new path (one the base does not hold) the workspace's `documents` cap has no room for,
 * so a full workspace's upload is refused without storing anything.
 */
export async function newPathsAhead(
  d: CapsDeps,
  workspaceId: string,
  corpusId: string,
): Promise<(path: string) => Promise<void>> {
  const limit = (await d.plans.capsOf(workspaceId))?.documents ?? null
  if (limit === null) return async () => {}
  const used = (await holdings(d, workspaceId)).documents
  let adding = 0
  return async (path) => {
    if (await d.corpora.documentByPath(corpusId, path)) return
    adding++
    await d.plans.ensureRoom(workspaceId, 'documents', used, adding)
  }
}

/**
 * What a push commit would add, estimated before its batches are registered: documents by new
 * paths less its deletions; bytes by content the workspace does not hold yet, less what replaced and
 * deleted documents held (0 when it adds no path and replaces nothing with larger content).
 */
export async function commitAdds(
  d: CapsDeps,
  docs: Map<string, DocumentRow>,
  items: Incoming[],
  deletions: DocumentRow[],
): Promise<{ documents: number; bytes: number }> {
  let documents = -deletions.length
  let bytes = 0
  let grows = false
  const counted = new Set<string>()
  const freed = new Set<string>()
  const free = (old: DocumentRow) => {
    bytes -= old.text_bytes
    if (old.raw_key !== null && !freed.has(old.raw_key)) {
      freed.add(old.raw_key)
      bytes -= old.size
    }
  }
  for (const item of items) {
    const old = docs.get(item.path) ?? null
    if (old?.sha256 === item.sha256) continue
    if (old) free(old)
    else documents++
    grows ||= !old || item.size > old.size
    if (!counted.has(item.rawKey) && !(await d.corpora.keyInUse(item.rawKey))) {
      counted.add(item.rawKey)
      bytes += item.size
    }
  }
  for (const old of deletions) free(old)
  return { documents, bytes: grows ? bytes : 0 }
}

/** Whether registering `item` over `existing` (same path) is a replacement by content no larger. */
export function noLarger(item: Incoming, existing: DocumentRow | null): boolean {
  return existing !== null && (existing.sha256 === item.sha256 || item.size <= existing.size)
}

/** Whether an error is a plan's cap refusing. */
export function isCapRefusal(e: unknown): e is ApiError {
  return e instanceof ApiError && e.code === 'plan_limit_reached'
}
