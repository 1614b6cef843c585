// The `folder` kind: a directory on the server, only under the roots the operator granted to the
// source's workspace (`sources.folder_roots`: `ws_<id>=/path`, or `*=/path/{workspace_id}`).
// Paths are checked after symlinks are resolved, when the source is added and again on every
// validate, listing and read, so neither `..` nor a symlink leads outside, and a grant withdrawn
// stops the sources that relied on it.
import { constants, type Stats } from 'node:fs'
import { open, opendir, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { Type } from '@sinclair/typebox'
import type { Config } from '../../../platform/config/config.load'
import { concatChunks } from '../../../platform/storage/streams'
import { type ConnectorKind, type SourceChange, SourceError, type SourceFile } from './connector'

/** A folder source has nothing to configure but its folder, and no credentials. */
export const FolderSettings = Type.Object({}, { additionalProperties: false })
export const FolderSecrets = Type.Object({}, { additionalProperties: false })

const READ_CHUNK = 256 * 1024

/** True when `path` is `base` or below it; both absolute and normalized. */
function inside(base: string, path: string): boolean {
  const r = relative(base, path)
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r))
}

const errno = (e: unknown) => (e as { code?: string } | undefined)?.code ?? ''

/** A file-system failure in the contract's words; `missing` is what ENOENT means where it happened. */
function fsError(e: unknown, missing: 'folder_not_found' | 'file_not_found'): SourceError {
  if (e instanceof SourceError) return e
  const code = errno(e)
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new SourceError(missing, 'It does not exist (any more).')
  if (code === 'EACCES' || code === 'EPERM') {
    return new SourceError('permission_denied', 'The server process may not read it.')
  }
  return new SourceError('source_error', `The file system failed${code ? ` (${code})` : ''}.`)
}

/** What a workspace id must look like before it becomes part of a path (no `/`, no `..`). */
const WORKSPACE_ID = /^ws_[A-Za-z0-9]+$/

/**
 * The directories `sources.folder_roots` grants to one workspace: those named for its id, and the
 * `*` templates with its id in place of `{workspace_id}`. Nothing for no workspace. (Entries of
 * another shape never pass the configuration's own check; they are skipped here all the same.)
 */
export function grantedRoots(folderRoots: string, workspaceId: string | undefined): string[] {
  if (!workspaceId || !WORKSPACE_ID.test(workspaceId)) return []
  const roots: string[] = []
  for (const entry of folderRoots.split(',')) {
    const at = entry.indexOf('=')
    if (at < 0) continue
    const grant = entry.slice(0, at).trim()
    const path = entry.slice(at + 1).trim()
    if (grant === workspaceId) roots.push(path)
    else if (grant === '*' && path.includes('{workspace_id}')) {
      roots.push(path.replaceAll('{workspace_id}', workspaceId))
    }
  }
  return roots.filter((r) => isAbsolute(r))
}

/**
 * The roots granted to the workspace, each as configured and with symlinks resolved; a root that
 * does not exist admits nothing. Whether a folder is inside a root is then a comparison of real
 * paths: `/roots/ab` is not inside `/roots/a`, and on a case-insensitive disk a path typed in
 * another case is refused rather than admitted (realpath does not always fold case).
 */
async function rootsOf(
  config: Config['sources'],
  workspaceId: string | undefined,
): Promise<{ given: string; real: string }[]> {
  const roots: { given: string; real: string }[] = []
  for (const given of grantedRoots(config.folder_roots, workspaceId)) {
    const real = await realpath(given).catch(() => null)
    if (real) roots.push({ given: resolve(given), real })
  }
  return roots
}

/**
 * The real path of a source folder, refused unless it is one of the roots or inside one once
 * symlinks and `..` are resolved. A path outside the roots is refused the same whether or not it
 * exists, so the check cannot be used to probe the server's directories.
 */
async function resolveFolder(
  raw: string,
  config: Config['sources'],
  workspaceId: string | undefined,
): Promise<string> {
  if (!isAbsolute(raw) || raw.includes('\0')) {
    throw new SourceError('invalid_folder', 'The folder must be an absolute path on the server.')
  }
  const roots = await rootsOf(config, workspaceId)
  // The message never names a root: another workspace's directories are none of this one's business.
  const refused = new SourceError(
    'root_not_allowed',
    roots.length === 0
      ? 'No server folder is granted to this workspace (the operator grants them in sources.folder_roots).'
      : 'The folder is not inside a folder granted to this workspace (sources.folder_roots).',
  )
  let real: string
  try {
    real = await realpath(raw)
  } catch (e) {
    const asked = resolve(raw)
    if (!roots.some((r) => inside(r.given, asked) || inside(r.real, asked))) throw refused
    throw fsError(e, 'folder_not_found')
  }
  if (!roots.some((r) => inside(r.real, real))) throw refused
  const st = await stat(real).catch((e) => {
    throw fsError(e, 'folder_not_found')
  })
  if (!st.isDirectory()) throw new SourceError('invalid_folder', 'The path is not a directory.')
  return real
}

function fileOf(path: string, st: Stats): SourceFile {
  return {
    id: path,
    path,
    // The inode catches a file replaced by another of the same size within the clock's resolution.
    version: `${st.size}:${st.mtimeMs}:${st.ino}`,
    size: st.size,
    modifiedAt: Math.trunc(st.mtimeMs),
    contentType: null,
  }
}

/**
 * The regular files under `base`, depth first, one directory handle open per level. A symlink is
 * followed only when its target, resolved, is inside `base`; a symlinked directory is walked at
 * most once and never when it is an ancestor (a loop). Names are kept as they are: one that is no
 * valid document path (a control character, a backslash) is listed, and the sync refuses it.
 */
async function* walk(
  base: string,
  dir: string,
  path: string,
  ancestors: Set<string>,
  linked: Set<string>,
  /** The run's checkpoint, before every entry: a stop takes effect within one entry. */
  checkpoint: () => void,
): AsyncGenerator<SourceChange> {
  const handle = await opendir(dir).catch((e) => {
    // A directory that vanished mid-walk has no files left; one that cannot be read fails the
    // listing, since a complete listing that left it out would delete its documents.
    if (errno(e) === 'ENOENT') return null
    throw fsError(e, 'folder_not_found')
  })
  if (!handle) return
  ancestors.add(dir)
  for await (const entry of handle) {
    checkpoint()
    const childPath = path ? `${path}/${entry.name}` : entry.name
    const child = join(dir, entry.name)
    if (entry.isDirectory()) {
      yield* walk(base, child, childPath, ancestors, linked, checkpoint)
    } else if (entry.isFile()) {
      const st = await stat(child).catch(() => null)
      if (st?.isFile()) yield { kind: 'file', file: fileOf(childPath, st) }
    } else if (entry.isSymbolicLink()) {
      const target = await realpath(child).catch(() => null)
      if (!target || !inside(base, target)) continue
      const st = await stat(target).catch(() => null)
      if (st?.isFile()) {
        yield { kind: 'file', file: fileOf(childPath, st) }
      } else if (st?.isDirectory() && !ancestors.has(target) && !linked.has(target)) {
        linked.add(target)
        yield* walk(base, target, childPath, ancestors, linked, checkpoint)
      }
    }
    // Sockets, FIFOs and devices are not documents.
  }
  ancestors.delete(dir)
}

/**
 * Opens a listed file for reading, refusing one whose path now leads outside `base`. The path is
 * resolved and checked, opened without following a final symlink, and checked again afterwards:
 * a file or directory swapped for a symlink in between is caught by one check or the other.
 */
async function openInside(base: string, path: string) {
  if (isAbsolute(path) || path.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new SourceError('file_not_found', 'The path is not a file under the folder.')
  }
  const outside = new SourceError('permission_denied', 'The file leads outside the source folder.')
  const real = await realpath(join(base, path)).catch((e) => {
    throw fsError(e, 'file_not_found')
  })
  if (!inside(base, real)) throw outside
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
  const handle = await open(real, flags).catch((e) => {
    throw errno(e) === 'ELOOP' ? outside : fsError(e, 'file_not_found')
  })
  try {
    const st = await handle.stat()
    const again = await realpath(real).catch(() => null)
    const now = again === real ? await stat(real).catch(() => null) : null
    if (!now || now.ino !== st.ino || now.dev !== st.dev) throw outside
    if (!st.isFile()) throw new SourceError('file_not_found', 'The path is no longer a regular file.')
    return { handle, size: st.size }
  } catch (e) {
    await handle.close()
    throw e
  }
}

async function readInside(base: string, path: string, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new SourceError('file_too_large', `The file is larger than ${maxBytes} bytes.`)
  const { handle, size } = await openInside(base, path)
  try {
    if (size > maxBytes) throw tooLarge()
    const chunks: Uint8Array[] = []
    let total = 0
    // Read to the end rather than to the size seen: a file still being written may have grown.
    for (;;) {
      const { bytesRead, buffer } = await handle.read(new Uint8Array(READ_CHUNK), 0, READ_CHUNK, null)
      if (bytesRead === 0) break
      total += bytesRead
      if (total > maxBytes) throw tooLarge()
      chunks.push(buffer.subarray(0, bytesRead))
    }
    return concatChunks(chunks, total)
  } catch (e) {
    throw fsError(e, 'file_not_found')
  } finally {
    await handle.close()
  }
}

export const folderKind: ConnectorKind = {
  kind: 'folder',
  settings: FolderSettings,
  secrets: FolderSecrets,
  folder: (raw, env, workspaceId) => resolveFolder(raw, env.config, workspaceId),
  unavailable: async (env, workspaceId) =>
    (await rootsOf(env.config, workspaceId)).length === 0
      ? 'No server folder is granted to this workspace (the operator grants them in sources.folder_roots, ENGRAM_SOURCES_FOLDER_ROOTS).'
      : null,
  open: ({ folder, env, workspaceId }) => ({
    async validate() {
      const base = await resolveFolder(folder, env.config, workspaceId)
      const dir = await opendir(base).catch((e) => {
        throw fsError(e, 'folder_not_found')
      })
      await dir.close()
    },
    async list() {
      const base = await resolveFolder(folder, env.config, workspaceId)
      const checkpoint = () => env.checkpoint?.()
      const changes = walk(base, base, '', new Set(), new Set(), checkpoint)
      return { complete: true, changes, nextCursor: () => null }
    },
    async read(file, maxBytes) {
      env.checkpoint?.()
      return readInside(await resolveFolder(folder, env.config, workspaceId), file.id, maxBytes)
    },
  }),
}
