// Ranges of pack objects. An upload of many small files writes them as one object, a pack (one
// file created and flushed instead of one a file), and each file is the range of it its key names:
// `<pack key>#<offset>+<length>`. The envelope store reads a range as an object of its own (the
// pack read whole, opened when sealed, and cut), seals and rewraps its pack, and deletes nothing
// for it: a pack goes when no row names any of its ranges (the ingest registrar decides).
import { InvalidObjectKeyError } from './object-store'

/** Where a range key points: its pack and its bytes there. */
export interface ObjectRange {
  pack: string
  offset: number
  length: number
}

const RANGE = /^(.+)#(\d{1,15})\+(\d{1,15})$/

/** The key of `length` bytes at `offset` of the pack `pack`. */
export function rangeKey(pack: string, offset: number, length: number): string {
  return `${pack}#${offset}+${length}`
}

/** The range a key names, or null for the key of a whole object. */
export function parseRange(key: string): ObjectRange | null {
  const m = RANGE.exec(key)
  return m ? { pack: m[1]!, offset: Number(m[2]), length: Number(m[3]) } : null
}

/** The object holding a key's bytes: its pack for a range, else the key itself. */
export function objectOf(key: string): string {
  return parseRange(key)?.pack ?? key
}

/**
 * The bounds of the keys of every range of `pack`, for a look-up by range in an index
 * (`key > lower AND key < upper`): '#' and '$' are neighbours in byte order.
 */
export function rangeBounds(pack: string): [lower: string, upper: string] {
  return [`${pack}#`, `${pack}$`]
}

/** A range's bytes, copied out of its pack's (null when the pack is gone). */
export function cut(packBytes: Uint8Array | null, r: ObjectRange, key: string): Uint8Array | null {
  if (!packBytes) return null
  if (r.offset + r.length > packBytes.byteLength) {
    throw new InvalidObjectKeyError(key, `its pack holds ${packBytes.byteLength} bytes`)
  }
  return packBytes.slice(r.offset, r.offset + r.length)
}

/** Packs larger than this are not kept (a pack is about 1 MiB). */
const MAX_CACHED_BYTES = 2 * 1024 * 1024

/**
 * The last few packs read whole, for the ranges read next: a batch or a run reads a pack's files
 * in turn, each otherwise reading (and, sealed, opening) the whole pack again. Ranges of one pack
 * asked for at once (a run reads a group's texts together) share one read of it. Forgotten after a
 * moment without reads, so an idle server holds none; a pack written or deleted is forgotten, and a
 * read of it in flight then is not kept.
 */
export class PackCache {
  private readonly packs = new Map<string, Uint8Array>()
  /** Reads of packs not answered yet, by pack: a range asked for meanwhile waits for the same read. */
  private readonly loading = new Map<string, Promise<Uint8Array | null>>()
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly size = 4,
    private readonly idleMs = 2000,
  ) {}

  /** The pack's bytes, from the cache, a read of it in flight, or `load`. */
  read(pack: string, load: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    const hit = this.packs.get(pack)
    if (hit) return Promise.resolve(hit)
    const inFlight = this.loading.get(pack)
    if (inFlight) return inFlight
    const loading: Promise<Uint8Array | null> = load().then(
      (bytes) => {
        if (this.loading.get(pack) !== loading) return bytes // forgotten meanwhile: not kept
        this.loading.delete(pack)
        if (bytes && bytes.byteLength <= MAX_CACHED_BYTES) this.keep(pack, bytes)
        return bytes
      },
      (e) => {
        if (this.loading.get(pack) === loading) this.loading.delete(pack)
        throw e
      },
    )
    this.loading.set(pack, loading)
    return loading
  }

  forget(key: string): void {
    this.packs.delete(key)
    this.loading.delete(key)
  }

  private keep(pack: string, bytes: Uint8Array): void {
    this.packs.set(pack, bytes)
    if (this.packs.size > this.size) this.packs.delete(this.packs.keys().next().value!)
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.packs.clear(), this.idleMs)
    this.timer.unref?.()
  }
}
