import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type RunningBinary, startSource } from '../helpers/binary'

// Issue 34, small things that stop people: a taken port says how to choose another, and a server
// others can reach says how to give its links the address they use.

const ROOT = resolve(import.meta.dir, '../..')
let dir = ''
let server: RunningBinary | null = null
let holder: ReturnType<typeof Bun.serve> | null = null
afterEach(async () => {
  await server?.stop()
  server = null
  holder?.stop(true)
  holder = null
  rmSync(dir, { recursive: true, force: true })
})

test('a port already in use stops the start with one line naming --port and ENGRAM_PORT', async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-port-'))
  holder = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('someone else') })
  const port = holder.port as number
  const proc = Bun.spawn([process.execPath, 'run', join(ROOT, 'src/main.ts'), 'serve'], {
    cwd: dir,
    env: {
      PATH: Bun.env.PATH ?? '',
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_HOST: '127.0.0.1',
      ENGRAM_PORT: String(port),
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()])
  expect(code).not.toBe(0)
  expect(stderr.trim().split('\n')).toEqual([
    `engram: port ${port} is already in use (127.0.0.1:${port}): stop what listens there, or start on another port with --port ${port + 1} or ENGRAM_PORT=${port + 1}.`,
  ])
}, 60_000)

test('listening beyond loopback without ENGRAM_BASE_URL, start-up says how to set it', async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-port-'))
  server = await startSource({
    cwd: dir,
    env: { ENGRAM_DATA_DIR: join(dir, 'data'), ENGRAM_HOST: '0.0.0.0' },
  })
  await server.waitForLine((l) => l.msg === 'ready')
  expect(server.lines.filter((l) => String(l.msg).includes('ENGRAM_BASE_URL'))).toMatchObject([
    { level: 'warn', msg: expect.stringContaining('Set ENGRAM_BASE_URL to the address people use') },
  ])
}, 60_000)

test('with ENGRAM_BASE_URL set, nothing is said about it', async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-port-'))
  server = await startSource({
    cwd: dir,
    env: {
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_HOST: '0.0.0.0',
      ENGRAM_BASE_URL: 'https://docs.example',
    },
  })
  await server.waitForLine((l) => l.msg === 'ready')
  expect(server.lines.filter((l) => String(l.msg).includes('ENGRAM_BASE_URL'))).toEqual([])
}, 60_000)
