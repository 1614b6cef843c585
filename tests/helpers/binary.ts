import { afterAll, beforeAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loadConfig } from '../../src/platform/config/config.load'
import { createObjectStore } from '../../src/platform/storage/create-object-store'
import type { ObjectStore } from '../../src/platform/storage/object-store'
import { testStorageEnv } from './test-storage'

const ROOT = resolve(import.meta.dir, '../..')

let built: { dir: string; path: string } | undefined

/**
 * Path of the compiled executable: ENGRAM_BINARY if given, else built once per test run into a
 * temporary folder (never into the checkout: it is about 180 MB with its source maps), which
 * `removeBuiltBinary` deletes when the run ends (tests/helpers/run-hooks.ts).
 */
export function binaryPath(): string {
  const given = Bun.env.ENGRAM_BINARY
  if (given) return resolve(given)
  if (built) return built.path
  const dir = mkdtempSync(join(tmpdir(), 'engram-binary-'))
  const path = join(dir, 'engram')
  const build = Bun.spawnSync([process.execPath, 'run', 'scripts/build.ts', path], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (build.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`build failed: ${build.stderr.toString()}`)
  }
  built = { dir, path }
  return path
}

/** Deletes the executable this run built, if it built one. */
export function removeBuiltBinary(): void {
  if (built) rmSync(built.dir, { recursive: true, force: true })
  built = undefined
}

type Line = Record<string, unknown>

/** Starts the executable on a free port and resolves once it logs that it is listening. */
export function startBinary(opts: { cwd: string; env?: Record<string, string>; args?: string[] }) {
  return startServerProcess([binaryPath(), ...(opts.args ?? ['serve'])], opts)
}

/** Starts the server from the checkout's sources (`bun run src/main.ts serve`), as `npm start` does. */
export function startSource(opts: { cwd: string; env?: Record<string, string> }) {
  return startServerProcess([process.execPath, 'run', join(ROOT, 'src/main.ts'), 'serve'], opts)
}

/**
 * Starts a server command on a free port and resolves once it logs that it is listening. Its objects
 * go where the pass keeps them for its data dir (test-storage.ts: S3 in the PostgreSQL pass) unless
 * `env` says otherwise.
 */
async function startServerProcess(cmd: string[], opts: { cwd: string; env?: Record<string, string> }) {
  const dataDir = opts.env?.ENGRAM_DATA_DIR
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: {
      PATH: Bun.env.PATH ?? '',
      ENGRAM_HOST: '127.0.0.1',
      ENGRAM_PORT: '0',
      ...(dataDir ? testStorageEnv(dataDir) : {}),
      ...opts.env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const lines: Line[] = []
  // Read once: every waiter that sees the process exit reports the same stderr.
  const stderr = new Response(proc.stderr).text()
  const waiters: { match: (l: Line) => boolean; resolve: (l: Line) => void }[] = []
  const pump = (async () => {
    const decoder = new TextDecoder()
    let buf = ''
    const reader = proc.stdout.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buf += decoder.decode(value, { stream: true })
      let nl = buf.indexOf('\n')
      while (nl >= 0) {
        const text = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        nl = buf.indexOf('\n')
        let line: Line
        try {
          line = JSON.parse(text) as Line
        } catch {
          continue
        }
        lines.push(line)
        for (const w of waiters.splice(0)) {
          if (w.match(line)) w.resolve(line)
          else waiters.push(w)
        }
      }
    }
  })()
  const waitForLine = (match: (l: Line) => boolean): Promise<Line> => {
    const found = lines.find(match)
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      waiters.push({ match, resolve })
      proc.exited.then(async (code) => reject(new Error(`engram exited with ${code}: ${await stderr}`)))
    })
  }
  const listening = await waitForLine((l) => l.msg === 'listening')
  return {
    proc,
    lines,
    waitForLine,
    url: `http://127.0.0.1:${listening.port}`,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      await pump.catch(() => {})
    },
  }
}

/**
 * The objects of a binary started on `dataDir` with no storage settings of its own, as the test
 * sees them: where the pass keeps them (local files under the data dir, or its S3 bucket in the
 * PostgreSQL pass), read through the product's own store.
 */
export function binaryObjects(dataDir: string): ObjectStore {
  const env = { ENGRAM_DATA_DIR: dataDir, ...testStorageEnv(dataDir) }
  return createObjectStore(loadConfig({ env, readFile: () => null }), dataDir)
}

/** Signs a new workspace up on a running server (invite-free sign-up); returns its session's auth header. */
export async function signUpOn(
  url: string,
  email: string,
  workspace: string,
): Promise<{ authorization: string }> {
  const res = await fetch(`${url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse', workspace_name: workspace, name: workspace[0] }),
  })
  if (res.status !== 200) throw new Error(`sign-up: ${res.status} ${await res.text()}`)
  return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` }
}

/** A running executable, as `startBinary` gives it. */
export type RunningBinary = Awaited<ReturnType<typeof startBinary>>

/**
 * The executable for a whole test file, run from an empty temporary directory (so nothing can come
 * from the source tree): started before the file's tests, stopped and removed after them.
 */
export function binaryForFile(dirPrefix: string): () => RunningBinary {
  let dir = ''
  let server: RunningBinary | undefined
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), dirPrefix))
    server = await startBinary({ cwd: dir, env: { ENGRAM_DATA_DIR: join(dir, 'data') } })
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  return () => server!
}
