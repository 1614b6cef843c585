// WAL checkpoints off the request path. SQLite copies the WAL back into the database on the
// connection whose commit takes the WAL past `wal_autocheckpoint` pages (1,000 by default), and
// syncs both files there: on the serving connection that is one question in about 80 (each writes
// about 13 pages: its allowance, its event and the event's delivery), held 7-55 ms on a 2-core
// machine (bench/RESULTS.md, issue 38 session 22). Here a thread of its own, on a connection of its
// own, checkpoints PASSIVE (it never waits for a reader or a writer, and none waits for it), and the
// serving connection's own checkpoint stays only as a backstop, far past where the thread works.
// A WAL copied back whole is started again from its beginning by SQLite itself, at the serving
// connection's next write. The thread never restarts it: a RESTART checkpoint holds the writer's
// lock while it syncs the database file, and under a 100x onboarding that sync outlasted the serving
// connection's 5 s busy timeout ("database is locked": documents failed their run).
//
// The thread costs about 7 MB: it starts only once the WAL file has grown to START_BYTES (a server
// that answers no question and onboards nothing never starts it), and stays until stop.
import type { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'

/** How often the WAL's size is looked at until the thread runs, and how often the thread checkpoints. */
const LOOK_MS = 250
const EVERY_MS = 100
/** WAL bytes at which the thread starts: half of what SQLite's default would checkpoint at (4 KiB pages). */
const START_BYTES = 2 * 1024 * 1024
/** Pages past which the serving connection checkpoints itself anyway (a thread fallen behind, or gone). */
export const BACKSTOP_PAGES = 10_000

// The thread's code, run from a blob URL so that the single-file executable needs no entry for it.
const THREAD = `
import { Database } from 'bun:sqlite'
let db = null
let timer = null
self.onmessage = (e) => {
  if (e.data.stop) {
    clearInterval(timer)
    db?.close()
    postMessage({ stopped: true })
    return
  }
  db = new Database(e.data.path, { readwrite: true, create: false })
  db.exec('PRAGMA busy_timeout = 5000')
  const passive = db.query('PRAGMA wal_checkpoint(PASSIVE)')
  let last = 0
  timer = setInterval(() => {
    try {
      const r = passive.get()
      if (r.checkpointed !== last) postMessage({ backfilled: r.checkpointed, log: r.log })
      last = r.checkpointed
    } catch (err) {
      // Another process's checkpoint (a CLI on the same data dir) holding the lock is no failure.
      const message = String((err && err.message) || err)
      if (!/busy|locked/i.test(message)) postMessage({ error: message })
    }
  }, e.data.everyMs)
}
`

/** Checkpoints a file database's WAL on a thread of its own once it has grown; see the file's head. */
export class CheckpointThread {
  private look: ReturnType<typeof setInterval> | null = null
  private worker: Worker | null = null
  /** Frames of the WAL copied back into the database, as the thread last said. */
  backfilled = 0

  constructor(
    private readonly client: Database,
    private readonly o: {
      startBytes?: number
      everyMs?: number
      onError?: (message: string) => void
      /** Told the WAL frames copied back and the WAL's frames, each time the thread has copied more. */
      onCheckpoint?: (frames: number, log: number) => void
    } = {},
  ) {}

  /** The WAL file of a file database in WAL mode, or null (in memory, another journal mode). */
  private walPath(): string | null {
    const file = this.client.filename
    if (!file || file === ':memory:' || file.startsWith('file:')) return null
    const mode = this.client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()
    return mode?.journal_mode === 'wal' ? `${file}-wal` : null
  }

  /** Starts looking at the WAL's size; the thread starts once it passes startBytes. */
  start(): void {
    const wal = this.walPath()
    if (!wal || this.look || this.worker) return
    const startBytes = this.o.startBytes ?? START_BYTES
    const grown = () => {
      try {
        return statSync(wal).size >= startBytes
      } catch {
        return false
      }
    }
    if (grown()) {
      this.startThread()
      return
    }
    this.look = setInterval(() => {
      if (grown()) this.startThread()
    }, LOOK_MS)
    this.look.unref?.()
  }

  private startThread(): void {
    if (this.look) clearInterval(this.look)
    this.look = null
    if (this.worker) return
    const url = URL.createObjectURL(new Blob([THREAD], { type: 'application/javascript' }))
    const worker = new Worker(url)
    // A server stopping does not wait for it (stop ends it first when it can).
    ;(worker as Worker & { unref?: () => void }).unref?.()
    worker.onmessage = (e: MessageEvent) => {
      if (typeof e.data.backfilled === 'number') {
        this.backfilled = e.data.backfilled
        this.o.onCheckpoint?.(e.data.backfilled, e.data.log)
      }
      if (e.data.error) this.o.onError?.(e.data.error)
    }
    worker.postMessage({
      path: this.client.filename,
      everyMs: this.o.everyMs ?? EVERY_MS,
    })
    this.worker = worker
    // From now on the thread checkpoints; the serving connection only past the backstop.
    this.client.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`)
  }

  /** Whether the thread runs. */
  get running(): boolean {
    return this.worker !== null
  }

  /** Stops looking and the thread (its connection closed); the serving connection checkpoints itself again. */
  async stop(): Promise<void> {
    if (this.look) clearInterval(this.look)
    this.look = null
    const worker = this.worker
    if (!worker) return
    this.worker = null
    await new Promise<void>((resolve) => {
      const done = setTimeout(resolve, 2000)
      worker.onmessage = (e: MessageEvent) => {
        if (e.data.stopped) {
          clearTimeout(done)
          resolve()
        }
      }
      worker.postMessage({ stop: true })
    })
    worker.terminate()
    try {
      this.client.exec('PRAGMA wal_autocheckpoint = 1000')
    } catch {
      // The connection is already closed: nothing to give back.
    }
  }
}
