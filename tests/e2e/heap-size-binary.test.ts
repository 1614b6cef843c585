import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  EDEN_RATIO_VARIABLE,
  edenRatio,
  GROWTH_VARIABLE,
  HEAP_GROWTH,
  HEAP_VARIABLE,
} from '../../src/cli/heap-size'
import { type RunningBinary, startBinary } from '../helpers/binary'

// Issue 38 (memory): the executable sizes JavaScriptCore's collector from engine.heap_mb by starting
// itself again with BUN_JSC_forceRAMSize set: the same process, which then serves.

let dir = ''
let server: RunningBinary | null = null
afterEach(async () => {
  await server?.stop()
  server = null
  rmSync(dir, { recursive: true, force: true })
})

/** The environment the process runs with now (after an execve, the new one). */
function environOf(pid: number): Record<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8')
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  )
}

test('a server started without the variable serves with it set from engine.heap_mb, in the same process', async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-heap-'))
  server = await startBinary({ cwd: dir, env: { ENGRAM_DATA_DIR: join(dir, 'data'), ENGRAM_HEAP_MB: '300' } })
  expect((await fetch(`${server.url}/v1`)).status).toBe(200)
  expect(environOf(server.proc.pid)[HEAP_VARIABLE]).toBe(String(300 * 1024 * 1024))
  expect(environOf(server.proc.pid)[GROWTH_VARIABLE]).toBe(HEAP_GROWTH)
  expect(environOf(server.proc.pid)[EDEN_RATIO_VARIABLE]).toBe(edenRatio(Number(HEAP_GROWTH)))
  // Logged once: the first start restarted before it logged anything.
  expect(server.lines.filter((l) => l.msg === 'listening')).toHaveLength(1)
})

test("an operator's own BUN_JSC_forceRAMSize is kept", async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-heap-'))
  server = await startBinary({
    cwd: dir,
    env: { ENGRAM_DATA_DIR: join(dir, 'data'), [HEAP_VARIABLE]: '500000000' },
  })
  expect(environOf(server.proc.pid)[HEAP_VARIABLE]).toBe('500000000')
})
