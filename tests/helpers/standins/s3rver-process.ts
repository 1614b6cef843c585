// s3rver (s3rver.ts, with its two mends) in a process of its own, for the PostgreSQL test pass: every
// test app and every spawned binary of the pass keeps its objects there (tests/helpers/test-storage.ts).
// In a process of its own because a test that waits for a child synchronously (spawnSync) stops its
// own event loop: an in-process server would never answer that child.
//
// Run as a script (`bun run s3rver-process.ts <ready-file>`), it starts the server, writes
// {"endpoint": ...} to the ready file and serves until its stdin ends or it is sent SIGTERM; its
// stdin is a pipe from the process that started it, which ends however that process ends (`bun test`
// runs no exit handlers), so the server never outlives it.
import { spawn } from 'node:child_process'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { startS3rver } from './s3rver'

/** A running s3rver process. */
export interface S3rverProcess {
  /** http://127.0.0.1:<port> */
  endpoint: string
  /** Stops the server (its directory removed) and waits for its process to end. */
  stop(): Promise<void>
}

/**
 * Starts the server process and waits, synchronously (a test app is built synchronously), until it
 * listens. Throws with what it printed when it does not within 30 s.
 */
export function startS3rverProcess(): S3rverProcess {
  const dir = mkdtempSync(join(tmpdir(), 'engram-s3rver-process-'))
  const ready = join(dir, 'ready.json')
  const log = openSync(join(dir, 'log'), 'w')
  const child = spawn(process.execPath, ['run', import.meta.path, ready], { stdio: ['pipe', log, log] })
  closeSync(log)
  // Neither keeps this process alive; the pipe still closes when this process ends.
  child.unref()
  ;(child.stdin as unknown as { unref?: () => void } | null)?.unref?.()
  const deadline = Date.now() + 30_000
  while (!existsSync(ready)) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      const printed = readFileSync(join(dir, 'log'), 'utf8').slice(-2000)
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`the s3rver process did not start within 30 s: ${printed}`)
    }
    Bun.sleepSync(20)
  }
  const { endpoint } = JSON.parse(readFileSync(ready, 'utf8')) as { endpoint: string }
  return {
    endpoint,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The server process itself. */
async function serve(ready: string): Promise<void> {
  const s3 = await startS3rver()
  let stopping: Promise<void> | null = null
  const stop = () => {
    // The starter's directory (this ready file, the log) goes too: the starter may be gone.
    stopping ??= s3.stop().finally(() => {
      rmSync(dirname(ready), { recursive: true, force: true })
      process.exit(0)
    })
    return stopping
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  // Written whole, then renamed: the starter never reads half a file.
  writeFileSync(`${ready}.part`, JSON.stringify({ endpoint: s3.endpoint }))
  renameSync(`${ready}.part`, ready)
  // Nothing is sent: the read ends when the starter's end of the pipe closes.
  const stdin = Bun.stdin.stream().getReader()
  while (!(await stdin.read()).done) {}
  await stop()
}

if (import.meta.main) {
  const ready = process.argv[2]
  if (!ready) throw new Error('usage: bun run tests/helpers/standins/s3rver-process.ts <ready-file>')
  await serve(ready)
}
