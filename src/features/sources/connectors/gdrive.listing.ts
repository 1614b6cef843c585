// Listing a Drive folder: the full recursive walk (files.list page by page, folder by folder) and the
// changes feed from a saved start page token, with each changed file's path found through its parents.
import type { drive_v3 } from '@googleapis/drive'
import type { ConnectorEnv, SourceChange, SourceErrorCode, SourceFile } from './connector'
import { driveError, FILE_FIELDS, toSourceError } from './gdrive.client'
import { PageProgress } from './run'

export const FOLDER_MIME = 'application/vnd.google-apps.folder'
const NATIVE_PREFIX = 'application/vnd.google-apps.'

/** Google-native files are exported to the Office type Engram extracts, and named with its extension. */
export const EXPORTS: Record<string, { type: string; ext: string }> = {
  'application/vnd.google-apps.document': {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ext: '.docx',
  },
  'application/vnd.google-apps.spreadsheet': {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ext: '.xlsx',
  },
  'application/vnd.google-apps.presentation': {
    type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ext: '.pptx',
  },
}

/** What the listings share: the client, the folder's real id, and the shared drive, if any. */
export interface DriveScope {
  api: drive_v3.Drive
  env: ConnectorEnv
  folderId: string
  sharedDriveId: string | null
}

/** Runs one call, turning a failure into a SourceError (`notFound` words a 404). */
export async function call<T>(
  d: DriveScope,
  run: () => Promise<{ data: T }>,
  notFound: SourceErrorCode,
): Promise<T> {
  try {
    return (await run()).data
  } catch (e) {
    throw toSourceError(e, d.env.clock.now().getTime(), notFound)
  }
}

/** Parameters that make each kind of call see a shared drive's items (none for My Drive). */
export function driveParams(
  d: DriveScope,
  call: 'get' | 'files' | 'changes' | 'token',
): Record<string, unknown> {
  const driveId = d.sharedDriveId
  if (!driveId) return {}
  if (call === 'get') return { supportsAllDrives: true }
  if (call === 'token') return { supportsAllDrives: true, driveId }
  const all = { supportsAllDrives: true, includeItemsFromAllDrives: true, driveId }
  return call === 'files' ? { ...all, corpora: 'drive' } : all
}

/** A Drive name as one path segment: no separators, never `.` or `..`. */
function segment(name: string | null | undefined): string {
  const s = (name ?? '').replace(/[/\\\p{Cc}]/gu, '_')
  return s === '' || s === '.' || s === '..' ? `_${s}` : s
}

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name)

/** The SourceFile for a Drive file in directory `dir`, or null for one Engram cannot take (forms, shortcuts). */
export function sourceFile(f: drive_v3.Schema$File, dir: string): SourceFile | null {
  const mime = f.mimeType ?? ''
  const exported = EXPORTS[mime]
  if (!exported && mime.startsWith(NATIVE_PREFIX)) return null
  let name = segment(f.name)
  if (exported && !name.toLowerCase().endsWith(exported.ext)) name += exported.ext
  return {
    id: f.id ?? '',
    path: join(dir, name),
    // Native files have no md5: their revision number moves with every edit.
    version: exported || !f.md5Checksum ? `v${f.version ?? 0}` : f.md5Checksum,
    size: exported || f.size == null ? -1 : Number(f.size),
    modifiedAt: f.modifiedTime ? Date.parse(f.modifiedTime) : null,
    contentType: exported ? exported.type : mime || null,
  }
}

/**
 * Every file under folder `id` (as `dir`), yielded page by page; subfolders are walked after the
 * folder's own pages. `trashedToo` also walks trashed items (a trashed folder's content is trashed).
 */
export async function* walk(
  d: DriveScope,
  id: string,
  dir: string,
  trashedToo = false,
): AsyncGenerator<SourceFile> {
  const folders = [{ id, dir }]
  const seen = new Set([id])
  for (let folder = folders.pop(); folder; folder = folders.pop()) {
    const q = `'${folder.id}' in parents${trashedToo ? '' : ' and trashed=false'}`
    // Per folder: the run's checkpoint before every page, and an end to a listing going nowhere.
    const progress = new PageProgress("The Drive folder's listing", d.env)
    let pageToken: string | undefined
    do {
      const params = { q, pageSize: 1000, pageToken, fields: `nextPageToken,files(${FILE_FIELDS})` }
      progress.before()
      const page = await call(
        d,
        () => d.api.files.list({ ...params, ...driveParams(d, 'files') }),
        'folder_not_found',
      )
      for (const f of page.files ?? []) {
        if (f.mimeType === FOLDER_MIME) {
          if (f.id && !seen.has(f.id)) folders.push({ id: f.id, dir: join(folder.dir, segment(f.name)) })
          if (f.id) seen.add(f.id)
          continue
        }
        const file = sourceFile(f, folder.dir)
        if (file) yield file
      }
      pageToken = page.nextPageToken ?? undefined
      progress.after(page.files?.length ?? 0, pageToken ?? null)
    } while (pageToken)
  }
}

/** Finds the folder-relative directory of items from their parents, with folders cached per listing. */
export class ParentPaths {
  private readonly paths = new Map<string, string | null>()
  constructor(private readonly d: DriveScope) {
    this.paths.set(d.folderId, '')
  }

  /** The directory of an item with these parents, or null when none leads into the source folder. */
  async dirOf(parents: string[] | null | undefined, depth = 0): Promise<string | null> {
    for (const p of parents ?? []) {
      const dir = await this.pathOf(p, depth)
      if (dir !== null) return dir
    }
    return null
  }

  /** Drops what is cached: a folder in the feed may have been renamed or moved since it was looked up. */
  forget(): void {
    this.paths.clear()
    this.paths.set(this.d.folderId, '')
  }

  private async pathOf(id: string, depth: number): Promise<string | null> {
    const known = this.paths.get(id)
    if (known !== undefined) return known
    // Drive nests folders a few levels in practice; a chain this deep is a cycle or not ours.
    if (depth > 100) return null
    let folder: drive_v3.Schema$File | null = null
    try {
      const fields = 'id,name,parents,trashed'
      folder = await call(
        this.d,
        () => this.d.api.files.get({ fileId: id, fields, ...driveParams(this.d, 'get') }),
        'file_not_found',
      )
    } catch (e) {
      // An ancestor we cannot see (deleted, not shared) is outside the source folder.
      if (
        !(
          e instanceof Error &&
          'code' in e &&
          (e.code === 'file_not_found' || e.code === 'permission_denied')
        )
      )
        throw e
    }
    const parentDir = folder && !folder.trashed ? await this.dirOf(folder.parents, depth + 1) : null
    const dir = parentDir === null ? null : join(parentDir, segment(folder?.name))
    this.paths.set(id, dir)
    return dir
  }
}

/** The listing entries one change stands for. */
export async function* fromChange(
  d: DriveScope,
  paths: ParentPaths,
  c: drive_v3.Schema$Change,
): AsyncGenerator<SourceChange> {
  const id = c.fileId ?? c.file?.id
  if (!id || c.changeType === 'drive') return
  const f = c.file
  const gone = c.removed || !f || f.trashed
  if (id === d.folderId) {
    if (gone) throw driveError('folder_not_found')
    return
  }
  const isFolder = f?.mimeType === FOLDER_MIME
  if (isFolder) paths.forget()
  const dir = gone ? null : await paths.dirOf(f.parents)
  if (!isFolder) {
    const file = dir === null ? null : sourceFile(f as drive_v3.Schema$File, dir)
    yield file ? { kind: 'file', file } : { kind: 'removed', id }
    return
  }
  // A folder renamed, moved in, moved out or trashed: the feed names only the folder, yet the paths
  // (or presence) of everything under it changed. A folder deleted for good cannot be walked: its
  // content is deleted with it and reported item by item.
  if (c.removed || !f) return
  const inside = dir === null ? null : join(dir, segment(f.name))
  for await (const file of walk(d, id, inside ?? '', inside === null)) {
    yield inside === null ? { kind: 'removed', id: file.id } : { kind: 'file', file }
  }
}
