import type { Dirent } from 'node:fs'
import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { type Clock, systemClock } from '../clock/clock'
import { cryptoRandom, type Random } from '../crypto/random'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/private-files'
import { fsyncDir, fsyncFile, inParallel, SYNC_PARALLEL, writeFully } from './fs-sync'
import { assertDeletablePrefix, assertValidKey, assertValidPrefix } from './keys'
import {
  InvalidObjectKeyError,
  type ObjectBody,
  type ObjectEntry,
  type ObjectHead,
  type ObjectStore,
  type PutOptions,
  type PutResult,
  type SweepOptions,
} from './object-store'
import { bodyChunks, fileHandleStream, MeteredHash } from './streams'

/** The directory under the store root holding writes in progress; keys cannot start with a dot. */
export const TEMP_DIR_NAME = '.tmp'

/** Options of the local driver. */
export interface LocalStoreOptions {
  /** Directory holding the objects (`<data dir>/objects` by default). */
  root: string
  clock?: Clock
  random?: Random
}

const errCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code
const isMissing = (e: unknown) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes(errCode(e) ?? '')
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

/**
 * Objects as files under one root, the key being the relative path. A write goes to a temp file in
 * `<root>/.tmp` (same filesystem), is fsynced and renamed into place, so it appears whole or not at
 * all, even across a crash. One limitation of mapping keys to paths: `a/b` and `a/b/c` cannot both be
 * objects; such a write fails with `InvalidObjectKeyError`. Features build keys from ids, so this
 * does not arise.
 */
export class LocalObjectStore implements ObjectStore {
  readonly driver = 'local' as const
  readonly root: string
  readonly tempDir: string
  private readonly clock: Clock
  private readonly random: Random

  constructor(opts: LocalStoreOptions) {
    this.root = resolve(opts.root)
    this.tempDir = join(this.root, TEMP_DIR_NAME)
    this.clock = opts.clock ?? systemClock
    this.random = opts.random ?? cryptoRandom
  }

  /** The file of `key`; the prefix check is defence in depth behind key validation. */
  private pathOf(key: string): string {
    assertValidKey(key)
    const p = join(this.root, key)
    if (!p.startsWith(this.root + sep)) throw new InvalidObjectKeyError(key, 'escapes the store root')
    return p
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<PutResult> {
    const final = this.pathOf(key)
    const tmp = join(this.tempDir, `${toHex(this.random.bytes(16))}.part`)
    const meter = new MeteredHash(opts.maxBytes)
    let fh: FileHandle | undefined
    // Folders and files owner-only: objects are the tenants' documents (see private-files.ts).
    // The temp folder is made when missing (once), not asked for at every write.
    const made = async <T>(create: () => Promise<T>): Promise<T> =>
      create().catch(async (e) => {
        if (errCode(e) !== 'ENOENT') throw e
        await mkdir(this.tempDir, { recursive: true, mode: PRIVATE_DIR_MODE })
        return create()
      })
    try {
      if (opts.deferSync && typeof body !== 'object') body = new TextEncoder().encode(body)
      if (opts.deferSync && body instanceof Uint8Array) {
        // A whole body written unsynced is one call on the file-system threads, not three (open,
        // write, close): a small file's write is mostly the calls' cost.
        const bytes = body
        meter.update(bytes)
        await made(() => writeFile(tmp, bytes, { flag: 'wx', mode: PRIVATE_FILE_MODE }))
      } else {
        fh = await made(() => open(tmp, 'wx', PRIVATE_FILE_MODE))
        for await (const chunk of bodyChunks(body)) {
          meter.update(chunk)
          await writeFully(fh, chunk)
        }
        // Data must be on disk before the rename makes it visible, or a crash could publish a hole
        // (a deferred write is published first and made durable by `sync`, before anything refers to it).
        if (!opts.deferSync) await fh.sync()
        await fh.close()
        fh = undefined
      }
      await this.publish(key, tmp, final, !opts.deferSync)
    } catch (e) {
      await fh?.close().catch(() => {})
      await rm(tmp, { force: true })
      throw e
    }
    return { key, size: meter.size, sha256: meter.digest() }
  }

  /** Renames the finished temp file into place and (unless deferred) makes the rename durable. */
  private async publish(key: string, tmp: string, final: string, durable: boolean): Promise<void> {
    const dir = dirname(final)
    for (let attempt = 0; ; attempt++) {
      try {
        // The folder is made when the rename finds none (a concurrent delete may also prune it
        // between mkdir and rename: it is made again).
        if (attempt > 0) await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
        await rename(tmp, final)
        break
      } catch (e) {
        if (errCode(e) === 'ENOENT' && attempt < 5) continue
        if (['ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(errCode(e) ?? '')) {
          throw new InvalidObjectKeyError(
            key,
            'the local store cannot hold an object and a prefix of one name',
          )
        }
        throw e
      }
    }
    if (durable) await fsyncDir(dir)
  }

  /** Each file's data, then each folder's names once, a few at a time (the disk merges the flushes). */
  async sync(keys: readonly string[]): Promise<void> {
    const paths = [...new Set(keys.map((k) => this.pathOf(k)))]
    await inParallel(paths, SYNC_PARALLEL, fsyncFile)
    await inParallel([...new Set(paths.map(dirname))], SYNC_PARALLEL, fsyncDir)
  }

  /** Opens the object's file for reading, or null when there is no such object. */
  private async openObject(key: string): Promise<FileHandle | null> {
    const path = this.pathOf(key)
    let fh: FileHandle
    try {
      fh = await open(path, 'r')
    } catch (e) {
      if (isMissing(e)) return null
      throw e
    }
    // Opening a directory succeeds on Linux; a key that is only a prefix is not an object.
    if (!(await fh.stat()).isFile()) {
      await fh.close()
      return null
    }
    return fh
  }

  async get(key: string): Promise<ReadableStream<Uint8Array> | null> {
    const fh = await this.openObject(key)
    return fh ? fileHandleStream(fh) : null
  }

  /** One call for the whole file (a folder, a key that is only a prefix, reads as missing). */
  async getBytes(key: string): Promise<Uint8Array | null> {
    let b: Buffer
    try {
      b = await readFile(this.pathOf(key))
    } catch (e) {
      if (isMissing(e)) return null
      throw e
    }
    // A plain array of its own (it may be handed to a worker thread and detached).
    return b.byteOffset === 0 && b.buffer.byteLength === b.byteLength
      ? new Uint8Array(b.buffer)
      : new Uint8Array(b)
  }

  async getText(key: string): Promise<string | null> {
    const bytes = await this.getBytes(key)
    return bytes ? new TextDecoder().decode(bytes) : null
  }

  async head(key: string): Promise<ObjectHead | null> {
    try {
      const st = await stat(this.pathOf(key))
      return st.isFile() ? { size: st.size } : null
    } catch (e) {
      if (isMissing(e)) return null
      throw e
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key)
    try {
      await unlink(path)
    } catch (e) {
      if (isMissing(e)) return
      throw e
    }
    await this.prune(dirname(path))
  }

  /** Removes now-empty directories up to the root, so deleted workspaces leave no trace on disk. */
  private async prune(dir: string): Promise<void> {
    let d = dir
    while (d.startsWith(this.root + sep)) {
      try {
        await rmdir(d)
      } catch {
        return // not empty (or already gone): stop climbing
      }
      d = dirname(d)
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertDeletablePrefix(prefix)
    const keys: string[] = []
    for await (const o of this.list(prefix)) keys.push(o.key)
    for (const k of keys) await this.delete(k)
    return keys.length
  }

  async *list(prefix: string): AsyncIterable<ObjectEntry> {
    assertValidPrefix(prefix)
    const cut = prefix.lastIndexOf('/') + 1
    yield* this.walk(join(this.root, prefix.slice(0, cut)), prefix.slice(0, cut), prefix.slice(cut))
  }

  /**
   * Depth-first walk in byte order of full keys: a directory sorts as its name plus '/', which is
   * where its keys fall among its siblings' (so `a-c` comes before `a/b`, as S3 lists them).
   */
  private async *walk(dir: string, keyPrefix: string, namePrefix: string): AsyncIterable<ObjectEntry> {
    let entries: Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (e) {
      if (isMissing(e)) return
      throw e
    }
    const items = entries
      .filter((e) => e.name.startsWith(namePrefix) && !(keyPrefix === '' && e.name.startsWith('.')))
      .map((e) => ({ e, order: e.isDirectory() ? `${e.name}/` : e.name }))
      .sort((a, b) => byteOrder(a.order, b.order))
    for (const { e } of items) {
      const key = keyPrefix + e.name
      if (e.isDirectory()) {
        yield* this.walk(join(dir, e.name), `${key}/`, '')
      } else if (e.isFile()) {
        const st = await stat(join(dir, e.name)).catch(() => null)
        if (st?.isFile()) yield { key, size: st.size, lastModified: st.mtime }
      }
    }
  }

  /** Plain storage refuses no workspace (envelope-store.ts does, for a disabled key). */
  async assertReadable(_workspaceId: string): Promise<void> {}

  async presignPut(key: string, _expiresSeconds: number): Promise<string | null> {
    assertValidKey(key)
    return null
  }

  async sweepTemp(opts: SweepOptions = {}): Promise<number> {
    let names: string[]
    try {
      names = await readdir(this.tempDir)
    } catch (e) {
      if (isMissing(e)) return 0
      throw e
    }
    const cutoff = this.clock.now().getTime() - (opts.olderThanMs ?? 0)
    let removed = 0
    for (const name of names) {
      const path = join(this.tempDir, name)
      const st = await stat(path).catch(() => null)
      if (!st || st.mtimeMs > cutoff) continue
      await rm(path, { recursive: true, force: true })
      removed++
    }
    return removed
  }
}
