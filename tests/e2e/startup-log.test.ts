import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningBinary, startBinary } from '../helpers/binary'

// Issue 18, items 1 and 11: what the executable tells its operator at start-up.

let dir = ''
let server: RunningBinary | null = null
afterEach(async () => {
  await server?.stop()
  server = null
  rmSync(dir, { recursive: true, force: true })
})

test('start-up logs the model server settings without its key; loopback with email off is no warning', async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-startup-'))
  server = await startBinary({
    cwd: dir,
    env: {
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_LLM_URL: 'http://user:pw@127.0.0.1:9/v1?token=x',
      ENGRAM_LLM_MODEL: 'tiny',
      ENGRAM_LLM_API_KEY: 'sk-secret-never-logged',
    },
  })
  const line = await server.waitForLine((l) => l.msg === 'answers: model server')
  expect(line).toMatchObject({
    llm_url: 'http://127.0.0.1:9/v1',
    llm_model: 'tiny',
    llm_strict: false,
    llm_api_key: 'set',
  })
  await server.waitForLine((l) => l.msg === 'ready')
  const all = JSON.stringify(server.lines)
  expect(all).not.toContain('sk-secret-never-logged')
  expect(all).not.toContain('pw@')
  expect(server.lines.some((l) => String(l.msg).startsWith('email is disabled while listening'))).toBe(false)
})
