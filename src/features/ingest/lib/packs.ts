// An upload's small files written together. Creating a file costs the file system more than
// writing a few KB into one (on the bench machine's disk, 0.1-0.7 ms of kernel time a file), so a
// request of many small files writes them as packs of about PACK_BYTES, one object each, and each
// document's raw key names its range of a pack (platform/storage/ranges.ts). Fewer than
// PACK_MIN_FILES files (a request of a few) are written one object a file, as before.
import { sha256Hex } from '../../../platform/crypto/hash'
import { rangeKey } from '../../../platform/storage/ranges'
import type { Registrar } from '../ingest.registrar'
import type { Incoming, IngestDeps, ReadOnUpload } from '../ingest.types'
import { uploadTextOf } from './extract-steps'
import { SIDECAR_TYPE, uploadTextKeyOf } from './keys'

/** What packing works with. */
export type PackDeps = Pick<IngestDeps, 'objects'> & { registrar: Registrar }

/** A pack is written once its files hold this many bytes (and at the request's end). */
export const PACK_BYTES = 1024 * 1024
/** Fewer files than this are written one object a file. */
export const PACK_MIN_FILES = 8
/** Packs (or groups of single files) written at once while the next parts are read. */
const PACKS_IN_FLIGHT = 2

/** A checked small file waiting for its pack, with its text when it was read as it came. */
interface Waiting {
  bytes: Uint8Array
  item: Omit<Incoming, 'rawKey' | 'sha256' | 'size' | 'text'>
  read: ReadOnUpload | null
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

  /**
   * Takes a checked small file (and its text, when read: a sidecar is written in its pack too);
   * `stored` resolves to what it became once its pack is written.
   */
  async add(
    bytes: Uint8Array,
    item: Waiting['item'],
    read: ReadOnUpload | null = null,
  ): Promise<{ stored: Promise<Incoming> }> {
    const stored = new Promise<Incoming>((done, failed) => {
      this.waiting.push({ bytes, item, read, done, failed })
    })
    stored.catch(() => {})
    this.bytes += bytes.byteLength + (read?.sidecar?.byteLength ?? 0)
    if (this.bytes >= PACK_BYTES) await this.flush()
    return { stored }
  }

  /** Writes a file at once as an object of its own (with its sidecar, when its text was read); what it became. */
  alone(bytes: Uint8Array, item: Waiting['item'], read: ReadOnUpload | null = null): Promise<Incoming> {
    return new Promise<Incoming>((done, failed) => {
      this.one({ bytes, item, read, done, failed }).catch(failed)
    })
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

  /** A key this request writes (`key`: by default a fresh one), in flight until its rows commit. */
  private newKey(key = this.deps.registrar.newBlobKey(this.workspaceId, this.corpusId)): string {
    this.written.push(key)
    this.deps.registrar.inflight.add(key)
    return key
  }

  /** A file as an object of its own, and its sidecar (if any) as another: each goes when unused. */
  private async one(f: Waiting): Promise<void> {
    const key = this.newKey()
    const sidecar = f.read?.sidecar
    const textKey = sidecar ? this.newKey(uploadTextKeyOf(key)) : null
    const [put] = await Promise.all([
      this.deps.objects.put(key, f.bytes, { deferSync: true }),
      sidecar && this.deps.objects.put(textKey!, sidecar, { deferSync: true, contentType: SIDECAR_TYPE }),
    ])
    f.done(withText({ ...f.item, sha256: put.sha256, size: put.size, rawKey: key }, f.read, textKey))
  }

  /** One object for all the files (and their sidecars), each document's keys their ranges of it. */
  private async pack(files: Waiting[]): Promise<void> {
    const key = this.newKey()
    const size = (f: Waiting) => f.bytes.byteLength + (f.read?.sidecar?.byteLength ?? 0)
    const all = new Uint8Array(files.reduce((n, f) => n + size(f), 0))
    const ranges: [raw: string, text: string | null][] = []
    let at = 0
    const place = (bytes: Uint8Array) => {
      all.set(bytes, at)
      at += bytes.byteLength
      return rangeKey(key, at - bytes.byteLength, bytes.byteLength)
    }
    for (const f of files) ranges.push([place(f.bytes), f.read?.sidecar ? place(f.read.sidecar) : null])
    await this.deps.objects.put(key, all, { deferSync: true })
    files.forEach((f, i) => {
      const [rawKey, textKey] = ranges[i]!
      f.done(
        withText(
          { ...f.item, sha256: sha256Hex(f.bytes), size: f.bytes.byteLength, rawKey },
          f.read,
          textKey,
        ),
      )
    })
  }
}

/** A stored file with its text read as it came, the sidecar (if any) at `textKey`. */
function withText(item: Incoming, read: ReadOnUpload | null, textKey: string | null): Incoming {
  return read ? { ...item, text: uploadTextOf(read, item.sha256, textKey) } : item
}
