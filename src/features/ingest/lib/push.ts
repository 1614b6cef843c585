// The push protocol's face: diff and commit here, the content's way in in push-content.ts, the
// shapes and manifest rules in push-manifest.ts. A manifest is worked through in slices with the
// event loop free between them (issue 32: one of 100,000 files held every request for seconds).

import type { Actor } from '../../../platform/auth/principal'
import { inSlices } from '../../../platform/concurrency/yield'
import { newId } from '../../../platform/crypto/random'
import { fail } from '../../../platform/errors/errors'
import type { DocumentRow } from '../../corpora/corpora.service'
import { capped, commitAdds, ensureRoomAhead } from '../ingest.caps'
import type { RegisterBatch } from '../ingest.registrar'
import type { SyncRunRow } from '../ingest.repo'
import type { Incoming } from '../ingest.types'
import { holdCommit } from './commit-leases'
import { normalizePrefix } from './paths'
import { putRaw, uploadUrls } from './push-content'
import {
  type DiffResult,
  MANIFEST_SLICE,
  type ManifestFile,
  managed,
  manifestLimits,
  type PushDeps,
  type PushProtocol,
  readManifest,
} from './push-manifest'

/**
 * Files (or deletions) a commit registers per unit, as many as a source's sync does by default
 * (`sources.batch_files`). A unit on SQLite holds the one write lock and awaits only the database,
 * so a large commit is registered in several, into one sync run that stays open (`listing`) until the last, so that the run
 * cannot end half way.
 */
export const COMMIT_BATCH = 100

/** Builds the push protocol on top of the registrar. */
export function pushProtocol(deps: PushDeps): PushProtocol {
  return {
    diff: (ws, corpusId, body) => diff(deps, ws, corpusId, body),
    uploadUrls: (ws, corpusId, files) => uploadUrls(deps, ws, corpusId, files),
    putRaw: (ws, corpusId, q, request) => putRaw(deps, ws, corpusId, q, request),
    commit: (ws, corpusId, body, actor) => commit(deps, ws, corpusId, body, actor),
  }
}

/** The base's parent documents under a prefix, by path. */
async function documentsUnder(
  deps: PushDeps,
  corpusId: string,
  prefix: string,
): Promise<Map<string, DocumentRow>> {
  return new Map((await deps.corpora.parentDocuments(corpusId, prefix)).map((d) => [d.path, d]))
}

/** `diff`: which files of the manifest are new, changed, unchanged, and which push-managed ones are missing. */
async function diff(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  body: { files: ManifestFile[]; prefix?: string },
): Promise<DiffResult> {
  await deps.corpora.get(ws, corpusId)
  const prefix = normalizePrefix(body.prefix)
  const files = await readManifest(body.files, prefix, manifestLimits(deps.config, false))
  const docs = await documentsUnder(deps, corpusId, prefix)
  const out: DiffResult = {
    new: [],
    changed: [],
    unchanged: [],
    missing: [],
    limits: { max_file_bytes: deps.config.max_file_bytes },
  }
  await inSlices(files, MANIFEST_SLICE, (slice) => {
    for (const f of slice) {
      const doc = docs.get(f.path)
      if (!doc) out.new.push(f.path)
      else if (doc.sha256 === f.sha256) out.unchanged.push(f.path)
      else out.changed.push(f.path)
      docs.delete(f.path)
    }
  })
  out.missing = managed([...docs.values()]).map((d) => d.path)
  return out
}

/** `commit`: registers the manifest (content found for every file) and deletes what is missing when asked. */
async function commit(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  body: { files: ManifestFile[]; delete_missing?: boolean; prefix?: string },
  actor: Actor,
): Promise<SyncRunRow> {
  await deps.corpora.get(ws, corpusId)
  const prefix = normalizePrefix(body.prefix)
  const files = await readManifest(body.files, prefix, manifestLimits(deps.config, true))
  const docs = await documentsUnder(deps, corpusId, prefix)
  const contentOf = contentFinder(deps, corpusId)
  const items: Incoming[] = []
  const missing: ManifestFile[] = []
  await inSlices(files, MANIFEST_SLICE, async (slice) => {
    const same = (f: ManifestFile) => docs.get(f.path)?.sha256 === f.sha256
    const found = await contentOf(slice.filter((f) => !same(f)))
    for (const f of slice) {
      const key = same(f) ? docs.get(f.path)!.raw_key : (found.get(f.sha256) ?? null)
      if (key === null) missing.push(f)
      else items.push({ ...f, contentType: null, rawKey: key })
    }
  })
  if (missing.length > 0) {
    throw fail(
      'content_missing',
      `The content of ${missing.length} file(s) was not uploaded (or its size differs): ${missing
        .slice(0, 5)
        .map((m) => m.path)
        .join(', ')}. Upload it, then commit again; nothing was changed.`,
      { files: missing.slice(0, 1000) },
    )
  }
  const listed = new Set(files.map((f) => f.path))
  const deletions = body.delete_missing ? managed([...docs.values()]).filter((d) => !listed.has(d.path)) : []
  // Past the plan's caps the commit is refused before its first batch (nothing registered); each
  // batch's transaction checks again. A commit that frees the room it takes deletes first.
  let deletionsFirst = false
  if (await capped(deps, ws)) {
    const adds = await commitAdds(deps, docs, items, deletions)
    await ensureRoomAhead(deps, ws, adds)
    deletionsFirst = deletions.length > 0 && adds.documents + deletions.length > 0
  }
  const gone = { rows: deletions, by: { actor, via: 'push' as const } }
  return registerInBatches(deps, ws, corpusId, items, gone, deletionsFirst)
}

/**
 * Registers a commit's files, then its deletions (or the deletions first, when they make the room
 * the files take under the plan's caps), `COMMIT_BATCH` at a time into one push run that
 * is closed after the last batch. A failure part way (the base deleted meanwhile) ends the run
 * `failed`, keeping what was registered; a crash leaves it open until a process starting up ends it
 * (`closeInterruptedCommits`) once its lease, renewed before each batch, has lapsed. Pushing again
 * finishes the work: unchanged files cost nothing.
 */
async function registerInBatches(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  items: Incoming[],
  deletions: NonNullable<RegisterBatch['deletions']>,
  deletionsFirst = false,
): Promise<SyncRunRow> {
  const { registrar } = deps
  const runId = newId(deps.random, 'run')
  const batches: Pick<RegisterBatch, 'items' | 'deletions'>[] = []
  for (let at = 0; at < items.length; at += COMMIT_BATCH)
    batches.push({ items: items.slice(at, at + COMMIT_BATCH) })
  for (let at = 0; at < deletions.rows.length; at += COMMIT_BATCH) {
    const batch = {
      items: [],
      deletions: { rows: deletions.rows.slice(at, at + COMMIT_BATCH), by: deletions.by },
    }
    if (deletionsFirst) batches.splice(at / COMMIT_BATCH, 0, batch)
    else batches.push(batch)
  }
  // An empty manifest still records its run and moves the base's last sync.
  if (batches.length === 0) batches.push({ items: [] })
  // Held before the run is open, so no process ever sees it open and unheld while this one lives.
  const lease = await holdCommit(deps, runId)
  await deps.store
    .unit(() =>
      registrar.repo.openRun({
        id: runId,
        workspaceId: ws,
        corpusId,
        source: 'push',
        sourceId: null,
        jobId: null,
        now: registrar.now(),
      }),
    )
    .catch(async (e) => {
      await lease.release()
      throw e
    })
  registrar.committing.add(runId)
  try {
    await inSlices(batches, 1, async ([batch]) => {
      await lease.keep()
      await registrar.register(ws, corpusId, {
        ...batch!,
        source: 'push',
        fresh: [],
        managedBy: 'push',
        into: { runId, unchanged: 0, failures: [] },
      })
    })
    await registrar.repo.closeListing(runId, registrar.now())
  } catch (e) {
    await registrar.repo.closeListing(runId, registrar.now(), {
      status: 'failed',
      error: `The commit stopped part way (${(e as Error).message}); the files registered before are kept. Push again to finish.`,
    })
    throw e
  } finally {
    registrar.committing.delete(runId)
    await lease.release()
  }
  return (await registrar.repo.run(corpusId, runId))!
}

/**
 * Finds the content sent for a slice of a commit's files: the base's own copy, or the newest
 * complete upload of it. Each SHA-256 is looked up once, a slice's in two statements.
 */
function contentFinder(
  deps: PushDeps,
  corpusId: string,
): (slice: ManifestFile[]) => Promise<Map<string, string | null>> {
  const now = deps.registrar.now()
  const found = new Map<string, string | null>()
  return async (slice) => {
    const sizes = new Map<string, number>()
    for (const f of slice) if (!found.has(f.sha256) && !sizes.has(f.sha256)) sizes.set(f.sha256, f.size)
    if (sizes.size === 0) return found
    const shas = [...sizes.keys()]
    const held = await deps.corpora.rawKeysBySha(corpusId, shas)
    const uploads = await deps.registrar.uploads.uploadsByShas(corpusId, shas, now)
    for (const [sha, size] of sizes) {
      let key = held.get(sha) ?? null
      for (const u of key ? [] : (uploads.get(sha) ?? [])) {
        const head = await deps.objects.head(u.objectKey)
        if (head && head.size === size) {
          key = u.objectKey
          break
        }
      }
      found.set(sha, key)
    }
    return found
  }
}
