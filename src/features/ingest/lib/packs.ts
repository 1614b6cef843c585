// An upload's small files written together. Creating a file costs the file system more than
// writing a few KB into one (on the bench machine's disk, 0.1-0.7 ms of kernel time a file), so a
// request of many small files writes them as packs of about PACK_BYTES, one object each, and each
// document's raw key names its range of a pack (platform/storage/ranges.ts). Fewer than
// PACK_MIN_FILES files (a request of a few) are written one object a file, as before.
import { sha256Hex } from '../../../platform/crypto/hash'
import { rangeKey } from '../../../platform/storage/ranges'
import type { Registrar } from '../ingest.registrar'
import type { Incoming, IngestDeps } from '../ingest.types'

/** What packing works with. */
export type PackDeps = Pick<IngestDeps, 'objects'> & { registrar: Registrar }

/** A pack is written once its files hold this many bytes (and at the request's end). */
export const PACK_BYTES = 1024 * 1024
/** Fewer files than this are written one object a file. */
export const PACK_MIN_FILES = 8
/** Packs (or groups of single files) written at once while the next parts are read. */
const PACKS_IN_FLIGHT = 2

/** A checked small file waiting for its pack. */
interface Waiting {
  bytes: Uint8Array
  item: Omit<Incoming, 'rawKey' | 'sha256' | 'size'>
  done: (item: Incoming) => void
  failed: (e: unknown) => void
}

/**
 * Gathers a request's small files and writes them, unsynced, as packs (or one object a file when
 * few); `written` collects every key written, for the request to flush or undo.
 */
export class Packer {
  private waiting: Waiting[] = []
  private bytes = 0
  /** Writes under way; a request is answered once none is. */
  readonly writes = new Set<Promise<void>>()

  constructor(
    private readonly deps: PackDeps,
    private readonly workspaceId: string,
    private readonly corpusId: string,
    private readonly written: string[],
  ) {}

  /** Takes a checked small file; `stored` resolves to what it became once its pack is written. */
  async add(bytes: Uint8Array, item: Waiting['item']): Promise<{ stored: Promise<Incoming> }> {
    const stored = new Promise<Incoming>((done, failed) => {
      this.waiting.push({ bytes, item, done, failed })
    })
    stored.catch(() => {})
    this.bytes += bytes.byteLength
    if (this.bytes >= PACK_BYTES) await this.flush()
    return { stored }
  }

  /** Starts writing what waits (a few writes at a time: a full request holds at most a few MB). */
  async flush(): Promise<void> {
    const files = this.waiting
    this.waiting = []
    this.bytes = 0
    if (files.length === 0) return
    if (this.writes.size >= PACKS_IN_FLIGHT) await Promise.race(this.writes)
    const write = this.write(files).finally(() => this.writes.delete(write))
    write.catch(() => {})
    this.writes.add(write)
  }

  private async write(files: Waiting[]): Promise<void> {
    try {
      if (files.length < PACK_MIN_FILES) await Promise.all(files.map((f) => this.one(f)))
      else await this.pack(files)
    } catch (e) {
      for (const f of files) f.failed(e)
      throw e
    }
  }

  private newKey(): string {
    const key = this.deps.registrar.newBlobKey(this.workspaceId, this.corpusId)
    this.written.push(key)
    this.deps.registrar.inflight.add(key)
    return key
  }

  private async one(f: Waiting): Promise<void> {
    const key = this.newKey()
    const put = await this.deps.objects.put(key, f.bytes, { deferSync: true })
    f.done({ ...f.item, sha256: put.sha256, size: put.size, rawKey: key })
  }

  /** One object for all the files, each document's key its range of it. */
  private async pack(files: Waiting[]): Promise<void> {
    const key = this.newKey()
    const all = new Uint8Array(files.reduce((n, f) => n + f.bytes.byteLength, 0))
    const ranges: string[] = []
    let at = 0
    for (const f of files) {
      all.set(f.bytes, at)
      ranges.push(rangeKey(key, at, f.bytes.byteLength))
      at += f.bytes.byteLength
    }
    await this.deps.objects.put(key, all, { deferSync: true })
    files.forEach((f, i) => {
      f.done({ ...f.item, sha256: sha256Hex(f.bytes), size: f.bytes.byteLength, rawKey: ranges[i]! })
    })
  }
}
