// The push protocol's face: diff and commit here, the content's way in in push-content.ts, the
// shapes and manifest rules in push-manifest.ts.
import { fail } from '../../../platform/errors/errors'
import type { AuditActor } from '../../audit/audit.service'
import type { DocumentRow } from '../../corpora/corpora.service'
import type { SyncRunRow } from '../ingest.repo'
import type { Incoming } from '../ingest.types'
import { normalizePrefix } from './paths'
import { putRaw, uploadUrls } from './push-content'
import {
  type DiffResult,
  type ManifestFile,
  managed,
  type PushDeps,
  type PushProtocol,
  readManifest,
} from './push-manifest'

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
function documentsUnder(deps: PushDeps, corpusId: string, prefix: string): Map<string, DocumentRow> {
  return new Map(deps.corpora.parentDocuments(corpusId, prefix).map((d) => [d.path, d]))
}

/** `diff`: which files of the manifest are new, changed, unchanged, and which push-managed ones are missing. */
function diff(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  body: { files: ManifestFile[]; prefix?: string },
): DiffResult {
  deps.corpora.get(ws, corpusId)
  const prefix = normalizePrefix(body.prefix)
  const files = readManifest(body.files, prefix, null)
  const docs = documentsUnder(deps, corpusId, prefix)
  const out: DiffResult = {
    new: [],
    changed: [],
    unchanged: [],
    missing: [],
    limits: { max_file_bytes: deps.config.max_file_bytes },
  }
  for (const f of files) {
    const doc = docs.get(f.path)
    if (!doc) out.new.push(f.path)
    else if (doc.sha256 === f.sha256) out.unchanged.push(f.path)
    else out.changed.push(f.path)
    docs.delete(f.path)
  }
  out.missing = managed([...docs.values()]).map((d) => d.path)
  return out
}

/** `commit`: registers the manifest (content found for every file) and deletes what is missing when asked. */
async function commit(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  body: { files: ManifestFile[]; delete_missing?: boolean; prefix?: string },
  actor: AuditActor,
): Promise<SyncRunRow> {
  deps.corpora.get(ws, corpusId)
  const prefix = normalizePrefix(body.prefix)
  const files = readManifest(body.files, prefix, deps.config.max_file_bytes)
  const docs = documentsUnder(deps, corpusId, prefix)
  const contentOf = contentFinder(deps, corpusId)
  const items: Incoming[] = []
  const missing: ManifestFile[] = []
  for (const f of files) {
    const doc = docs.get(f.path)
    const key = doc && doc.sha256 === f.sha256 ? doc.raw_key : await contentOf(f)
    if (key === null) missing.push(f)
    else items.push({ ...f, contentType: null, rawKey: key })
  }
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
  const registered = await deps.registrar.register(ws, corpusId, {
    source: 'push',
    items,
    fresh: [],
    managedBy: 'push',
    deletions: { rows: deletions, by: { actor, via: 'push' } },
  })
  return registered.run
}

/**
 * Finds the content sent for a commit's file: the base's own copy, or the newest complete upload
 * of it. Each SHA-256 is looked up once.
 */
function contentFinder(deps: PushDeps, corpusId: string): (f: ManifestFile) => Promise<string | null> {
  const now = deps.registrar.now()
  const found = new Map<string, string | null>()
  return async (f) => {
    const cached = found.get(f.sha256)
    if (cached !== undefined) return cached
    let key = deps.corpora.rawKeyBySha(corpusId, f.sha256)
    for (const u of key ? [] : deps.registrar.repo.uploadsBySha(corpusId, f.sha256, now)) {
      const head = await deps.objects.head(u.object_key)
      if (head && head.size === f.size) {
        key = u.object_key
        break
      }
    }
    found.set(f.sha256, key)
    return key
  }
}
