// Engram as an operator runs it: the compiled executable (`npm run build`, built once per bench run
// into a temp dir) serving in a process of its own, on a temp data dir and a free loopback port, so
// the memory figures read from /proc are the server's alone (the in-process harness shares its heap
// with the bench and the load it generates). BENCH_ENGRAM=source runs `bun run src/main.ts serve`
// instead (it holds the transpiled sources too: about 12 MB more at idle); BENCH_ENGRAM=<path> runs
// an executable built before.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { registerAdmin, type Server } from './harness'
import { memoryOf } from './memory-of-process'

/** A running `engram serve` with an admin and a query key. */
export interface EngramProcess extends Server {
  /** The server's resident set now and its peak so far, in bytes. */
  memory(): { rss: number; peak: number }
  stop(): Promise<void>
}

const ROOT = resolve(import.meta.dir, '../..')
const MAIN = join(ROOT, 'src/main.ts')

let built: Promise<string> | null = null
/** The executable, built on first use and removed when the bench exits. */
function executable(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-bench-bin-'))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    const out = join(dir, 'engram')
    const build = Bun.spawn([process.execPath, 'run', join(ROOT, 'scripts/build.ts'), out], {
      cwd: ROOT,
      stdout: 'ignore',
      stderr: 'inherit',
    })
    if ((await build.exited) !== 0) throw new Error('npm run build failed')
    return out
  })()
  return built
}

/** The command that serves: the executable, or what BENCH_ENGRAM names. */
async function serveCommand(): Promise<string[]> {
  const chosen = process.env.BENCH_ENGRAM
  if (chosen === 'source') return [process.execPath, 'run', MAIN, 'serve']
  return [chosen || (await executable()), 'serve']
}

/**
 * Starts `engram serve` on a fresh data dir and registers its admin. The port is read from the
 * first-start banner (port 0 lets the kernel choose), which is also the sign that it listens.
 */
export async function spawnEngram(env: Record<string, string> = {}): Promise<EngramProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-proc-'))
  const proc = Bun.spawn(await serveCommand(), {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      ENGRAM_HOST: '127.0.0.1',
      ENGRAM_PORT: '0',
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_RATE_LIMITS: 'off',
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      // Request lines at info level would cost the server time on every question.
      ENGRAM_LOG_LEVEL: 'error',
      ENGRAM_MAX_QUEUED_QUERIES: '10000',
      // Settings of the shell (ENGRAM_COMPILE_THREADS=0 npm run bench baseline) override the defaults;
      // the runtime's own (BUN_JSC_useFTLJIT=0) pass through too, to measure the JIT's share.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(ENGRAM|BUN_JSC)_/.test(k))),
      ...env,
    } as Record<string, string>,
    stdout: 'inherit',
    stderr: 'pipe',
  })
  const reader = proc.stderr.getReader()
  const decoder = new TextDecoder()
  let banner = ''
  while (!/\/docs\n\n/.test(banner)) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`engram serve ended before its banner: ${banner}`)
    banner += decoder.decode(value, { stream: true })
  }
  const port = /localhost:(\d+)\//.exec(banner)?.[1]
  if (!port) throw new Error(`no port in the banner: ${banner}`)
  // Errors logged later still reach the terminal, and the pipe never fills.
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      process.stderr.write(value)
    }
  })()
  const server = await registerAdmin(`http://127.0.0.1:${port}`)
  return {
    ...server,
    memory: () => memoryOf(proc.pid),
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
