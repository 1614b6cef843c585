// Noticing commits without a read transaction. In WAL mode every commit, by any connection in any
// process, rewrites the header at the start of the `-shm` file (the wal-index; format documented
// at https://sqlite.org/walformat.html): a change counter, the last frame, salts and checksums. The
// header is kept twice; a writer fills the second copy, then the first, and a reader that finds the
// two equal has a header SQLite itself would accept. Looking at it costs nanoseconds through a
// shared mapping (or a fraction of a microsecond with `pread`), where a read transaction takes and
// drops a lock with two `fcntl` calls.
//
// The descriptor of the `-shm` file stays open as long as the connection: POSIX locks belong to the
// process, and closing any descriptor of the file would drop the locks SQLite holds on it. That is
// why the mapping is made with libc's `mmap` on that descriptor (`Bun.mmap` takes a path, and opens
// and closes a descriptor of its own). Engram opens one connection per database file per process,
// so the descriptor is closed only after that connection is gone.
import type { Database } from 'bun:sqlite'
import { closeSync, openSync, readSync } from 'node:fs'

/** Tells whether the database may have changed since an earlier look. */
export interface CommitWatch {
  /** How the header is looked at: a shared mapping, a read per look, or not at all. */
  readonly kind: 'mapped' | 'read' | 'none'
  /** A number that stays the same only while no connection has committed to the database. */
  version(): number
  /**
   * Keeps the version across a commit of this connection's own that changes no row any memo over
   * this watch keeps (a quiet unit, store.ts), in two halves: a mark taken before the transaction
   * begins (-1 when the last look is not the header as it is now), then
   * `quietDone(mark)` once it has committed, which takes the header as seen when exactly one commit
   * came since the mark. Only this connection's own transaction may commit in between.
   */
  quietMark(): number
  quietDone(mark: number): void
}

/** u32 words in one copy of the wal-index header (48 bytes). */
const HEADER_WORDS = 12
const HEADER_BYTES = 2 * HEADER_WORDS * 4
/** The header's change counter (`iChange`): one more for every commit, by any connection. */
const CHANGE = 2

const watches = new WeakMap<Database, CommitWatch>()
/** Closes a watch's descriptor once its connection is gone (and with it SQLite's locks). */
const descriptors = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd)
  } catch {
    // Already closed: nothing to release.
  }
})

/**
 * The commit watch of an open database, one per connection. A database that is not a WAL file
 * (`:memory:`, another journal mode) or whose `-shm` file cannot be opened gets a watch whose
 * version changes on every call, so whatever relies on it reads the database every time.
 * `map: false` skips the mapping and reads the header on every look.
 */
export function commitWatch(client: Database, opts: { map?: boolean } = {}): CommitWatch {
  let watch = watches.get(client)
  if (!watch) {
    watch = headerWatch(client, opts.map ?? true) ?? alwaysChanged()
    watches.set(client, watch)
  }
  return watch
}

function headerWatch(client: Database, map: boolean): CommitWatch | null {
  const file = client.filename
  if (!file || file === ':memory:' || file.startsWith('file:')) return null
  const mode = client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()
  if (mode?.journal_mode !== 'wal') return null
  // A read transaction opens (and, for the first connection, creates) the -shm file.
  client.query('SELECT count(*) FROM sqlite_master').get()
  let fd: number
  try {
    fd = openSync(`${file}-shm`, 'r')
  } catch {
    return null
  }
  descriptors.register(client, fd)
  const mapped = map ? mapHeader(fd) : null
  const buffer = new Uint32Array(2 * HEADER_WORDS)
  // The two copies of the header as they are now: the mapping itself, or a fresh read of the file.
  const look = mapped
    ? () => mapped
    : () => (readSync(fd, buffer, 0, HEADER_BYTES, 0) === HEADER_BYTES ? buffer : null)
  const first = new Uint32Array(HEADER_WORDS)
  const seen = new Uint32Array(HEADER_WORDS)
  let version = 0
  let settled = false
  /** Copies the header's first copy into `first`; false when the two copies differ (a commit being written) or it cannot be read. */
  const copy = (): boolean => {
    const header = look()
    if (!header) return false
    for (let i = 0; i < HEADER_WORDS; i++) first[i] = header[i]!
    for (let i = 0; i < HEADER_WORDS; i++) if (first[i] !== header[HEADER_WORDS + i]) return false
    return true
  }
  return {
    kind: mapped ? 'mapped' : 'read',
    quietMark() {
      // The change counter before, when the header is the one last seen (no commit since the last look).
      if (!settled || !copy()) return -1
      for (let i = 0; i < HEADER_WORDS; i++) if (first[i] !== seen[i]) return -1
      return first[CHANGE]!
    },
    quietDone(mark) {
      // Exactly one commit since, and it was this one: the header after it is taken as seen.
      if (mark >= 0 && copy() && first[CHANGE] === (mark + 1) >>> 0) seen.set(first)
    },
    version() {
      // As SQLite reads it: the first copy, then the second. Unequal copies mean a commit is being
      // written: the version moves now, and again once the header has settled. A short read (a file
      // being set up) counts the same way.
      const header = look()
      if (!header) {
        settled = false
        return ++version
      }
      for (let i = 0; i < HEADER_WORDS; i++) first[i] = header[i]!
      let same = settled
      for (let i = 0; i < HEADER_WORDS; i++) {
        const word = first[i]!
        if (word !== header[HEADER_WORDS + i]) {
          settled = false
          return ++version
        }
        if (word !== seen[i]) {
          seen[i] = word
          same = false
        }
      }
      settled = true
      if (!same) version++
      return version
    },
  }
}

type Mmap = (addr: null, length: number, prot: number, flags: number, fd: number, offset: number) => unknown
/** libc's `mmap`, bound once (undefined: not tried yet; null: not available). */
let mmap: Mmap | null | undefined

/**
 * A read-only shared mapping of the header through libc's `mmap` on a descriptor that stays open,
 * or null where that is not available (no glibc or macOS libc, no FFI); the mapping lasts as long as
 * the process (one page per database opened).
 */
function mapHeader(fd: number): Uint32Array | null {
  try {
    const { dlopen, FFIType, toArrayBuffer } = require('bun:ffi') as typeof import('bun:ffi')
    if (mmap === undefined) {
      mmap = null
      const libc = dlopen(process.platform === 'darwin' ? 'libc.dylib' : 'libc.so.6', {
        mmap: {
          args: [FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i64],
          returns: FFIType.ptr,
        },
      })
      mmap = libc.symbols.mmap as unknown as Mmap
    }
    if (!mmap) return null
    const PROT_READ = 1
    const MAP_SHARED = 1
    const at = mmap(null, HEADER_BYTES, PROT_READ, MAP_SHARED, fd, 0)
    // MAP_FAILED is (void *)-1, which comes back as a bigint.
    if (typeof at !== 'number' || at <= 0) return null
    return new Uint32Array(toArrayBuffer(at, 0, HEADER_BYTES))
  } catch {
    return null
  }
}

function alwaysChanged(): CommitWatch {
  let version = 0
  return {
    kind: 'none',
    version: () => ++version,
    quietMark: () => -1,
    quietDone: () => {},
  }
}
