import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningBinary, startBinary } from '../helpers/binary'

// Issue 18, items 1 and 11, and issue 32, item 1: what the executable tells its operator at start-up.

let dir = ''
let server: RunningBinary | null = null
afterEach(async () => {
  await server?.stop()
  server = null
  rmSync(dir, { recursive: true, force: true })
})

test('start-up logs the model server settings without its key, and that links go to this log', async () => {
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
  // The default email mode (log) is said once, as information; nothing is an error.
  expect(server.lines.filter((l) => String(l.msg).startsWith('email: no mail server'))).toMatchObject([
    { level: 'info' },
  ])
  expect(server.lines.filter((l) => l.level === 'error')).toEqual([])
})

test('ENGRAM_EMAIL=disabled is an error line at start-up: anyone can take over any account', async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-startup-'))
  server = await startBinary({
    cwd: dir,
    env: { ENGRAM_DATA_DIR: join(dir, 'data'), ENGRAM_EMAIL: 'disabled' },
  })
  await server.waitForLine((l) => l.msg === 'ready')
  expect(server.lines.filter((l) => l.level === 'error')).toMatchObject([
    { msg: expect.stringContaining('anyone who can reach this server can take over any account') },
  ])
})
