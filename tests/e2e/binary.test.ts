import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBinary } from '../helpers/binary'

// The compiled single executable, run from an empty directory so nothing can be read from the
// source tree: migrations and pages must come from inside the binary.
let dir: string
let server: Awaited<ReturnType<typeof startBinary>>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-smoke-'))
  server = await startBinary({ cwd: dir, env: { ENGRAM_DATA_DIR: join(dir, 'data') } })
}, 120_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the compiled executable', () => {
  test('serves GET / and GET /v1 on a free port with migrations applied from inside the binary', async () => {
    const root = await fetch(`${server.url}/`)
    expect(root.status).toBe(200)
    expect(await root.json()).toMatchObject({ service: 'engram', api_versions: ['1'], docs: '/docs' })
    const v1 = await fetch(`${server.url}/v1`)
    expect(await v1.json()).toEqual({ version: '1', deprecations: [], docs: '/docs' })
    expect(v1.headers.get('x-request-id')).toMatch(/^req_/)
    expect(server.lines.find((l) => l.msg === 'listening')?.migrations_applied).toBeGreaterThan(0)
  })

  test('serves its docs page and OpenAPI document', async () => {
    expect((await fetch(`${server.url}/docs`)).headers.get('content-type')).toContain('text/html')
    expect((await (await fetch(`${server.url}/openapi.json`)).json()).openapi).toBe('3.1.0')
  })

  test('writes one JSON log line per request with its id, route, status and duration', async () => {
    const res = await fetch(`${server.url}/v1`, { headers: { 'x-request-id': 'smoke-1' } })
    await res.text()
    const line = await server.waitForLine((l) => l.request_id === 'smoke-1')
    expect(line).toMatchObject({ method: 'GET', route: 'GET /v1', status: 200 })
  })
})
