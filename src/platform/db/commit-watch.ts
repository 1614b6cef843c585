// Noticing commits without a read transaction. In WAL mode every commit, by any connection in any
// process, rewrites the header at the start of the `-shm` file (the wal-index; format documented
// at https://sqlite.org/walformat.html): a change counter, the last frame, salts and checksums. The
// header is kept twice; a writer fills the second copy, then the first, and a reader that finds the
// two equal has a header SQLite itself would accept. Reading it with one `pread` costs a fraction
// of a microsecond, where a read transaction takes and drops a lock with two `fcntl` calls.
//
// The file is read, never mapped, and its descriptor stays open as long as the connection: POSIX
// locks belong to the process, and closing any descriptor of the file would drop the locks SQLite
// holds on it (`Bun.mmap` opens and closes one, so it is not used here).
import type { Database } from 'bun:sqlite'
import { closeSync, openSync, readSync } from 'node:fs'

/** Tells whether the database may have changed since an earlier look. */
export interface CommitWatch {
  /** A number that stays the same only while no connection has committed to the database. */
  version(): number
}

/** u32 words in one copy of the wal-index header (48 bytes). */
const HEADER_WORDS = 12

const watches = new WeakMap<Database, CommitWatch>()
/** Closes a watch's descriptor once its connection is gone (and with it SQLite's locks). */
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd))

/**
 * The commit watch of an open database, one per connection. A database that is not a WAL file
 * (`:memory:`, another journal mode) or whose `-shm` file cannot be opened gets a watch whose
 * version changes on every call, so whatever relies on it reads the database every time.
 */
export function commitWatch(client: Database): CommitWatch {
  let watch = watches.get(client)
  if (!watch) {
    watch = headerWatch(client) ?? alwaysChanged()
    watches.set(client, watch)
  }
  return watch
}

function headerWatch(client: Database): CommitWatch | null {
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
  const header = new Uint32Array(2 * HEADER_WORDS)
  const seen = new Uint32Array(HEADER_WORDS)
  let version = 0
  let settled = false
  return {
    version() {
      // Unequal copies mean a commit is being written: the version moves now, and again once the
      // header has settled. A short read (a file being set up) counts as a change the same way.
      if (readSync(fd, header, 0, header.byteLength, 0) !== header.byteLength) {
        settled = false
        return ++version
      }
      let same = settled
      for (let i = 0; i < HEADER_WORDS; i++) {
        const word = header[i]!
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

function alwaysChanged(): CommitWatch {
  let version = 0
  return { version: () => ++version }
}

/**
 * Rows read by key and reused only until the next commit to the database: every answer is the one a
 * fresh read would give at that moment, since any write, from any process, empties the memo first.
 * Only rows that exist are kept, at most `max` of them.
 */
export class CommitMemo<V> {
  private readonly rows = new Map<string, V>()
  private seen = -1

  constructor(
    private readonly commits: CommitWatch,
    private readonly read: (key: string) => V | undefined,
    private readonly max = 10_000,
  ) {}

  get(key: string): V | undefined {
    // The version is taken before the read: a commit racing the read moves it, and the next call
    // reads again.
    const version = this.commits.version()
    if (version !== this.seen) {
      this.rows.clear()
      this.seen = version
    }
    let row = this.rows.get(key)
    if (row === undefined) {
      row = this.read(key)
      if (row !== undefined && this.rows.size < this.max) this.rows.set(key, row)
    }
    return row
  }
}
