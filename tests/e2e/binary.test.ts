import { beforeAll, describe, expect, test } from 'bun:test'
import { relative, resolve } from 'node:path'
import { binaryForFile, binaryPath } from '../helpers/binary'

const ROOT = resolve(import.meta.dir, '../..')

/** What git ignores in the checkout (build output, data dirs), node_modules aside. */
function ignoredInCheckout(): string[] {
  const status = Bun.spawnSync(['git', 'status', '--porcelain', '--ignored'], { cwd: ROOT })
  if (status.exitCode !== 0) throw new Error(`git status: ${status.stderr.toString()}`)
  return status.stdout
    .toString()
    .split('\n')
    .filter((l) => l.startsWith('!! ') && !l.startsWith('!! node_modules'))
}

let ignoredBefore: string[] = []
// Registered before the executable's own hook, so the snapshot is taken before it is built.
beforeAll(() => {
  ignoredBefore = ignoredInCheckout()
})

// The compiled single executable, run from an empty directory so nothing can be read from the
// source tree: migrations and pages must come from inside the binary.
const binary = binaryForFile('engram-smoke-')

describe('the compiled executable', () => {
  test('serves GET / and GET /v1 on a free port with migrations applied from inside the binary', async () => {
    const root = await fetch(`${binary().url}/`)
    expect(root.status).toBe(200)
    expect(await root.json()).toMatchObject({ service: 'engram', api_versions: ['1'], docs: '/docs' })
    const v1 = await fetch(`${binary().url}/v1`)
    expect(await v1.json()).toEqual({ version: '1', deprecations: [], docs: '/docs' })
    expect(v1.headers.get('x-request-id')).toMatch(/^req_/)
    expect(binary().lines.find((l) => l.msg === 'listening')?.migrations_applied).toBeGreaterThan(0)
  })

  test('serves its docs page, the viewer embedded in it, and the OpenAPI document at both mounts', async () => {
    for (const path of ['/docs', '/v1/docs']) {
      const page = await fetch(`${binary().url}${path}`)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const html = await page.text()
      const assets = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!)
      expect(assets).toHaveLength(2)
      for (const asset of assets) {
        const res = await fetch(`${binary().url}${asset}`)
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe(
          asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        )
        expect((await res.text()).length).toBeGreaterThan(100_000)
      }
    }
    for (const path of ['/openapi.json', '/v1/openapi.json']) {
      expect((await (await fetch(`${binary().url}${path}`)).json()).openapi).toBe('3.1.0')
    }
  })

  test('serves the console embedded in it: the page, and the script it loads as JavaScript', async () => {
    const page = await fetch(`${binary().url}/console/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const script = (await page.text()).match(/src="(\/console\/assets\/[^"]+\.js)"/)?.[1]
    expect(script).toBeDefined()
    const js = await fetch(`${binary().url}${script}`)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toStartWith('text/javascript')
    expect((await js.text()).length).toBeGreaterThan(1000)
  })

  test('writes one JSON log line per request with its id, route, status and duration', async () => {
    const res = await fetch(`${binary().url}/v1`, { headers: { 'x-request-id': 'smoke-1' } })
    await res.text()
    const line = await binary().waitForLine((l) => l.request_id === 'smoke-1')
    expect(line).toMatchObject({ method: 'GET', route: 'GET /v1', status: 200 })
  })

  test('is built and run outside the checkout, leaving nothing in it', () => {
    expect(binary().url).toStartWith('http://127.0.0.1:')
    expect(relative(ROOT, binaryPath())).toStartWith('..')
    expect(ignoredInCheckout()).toEqual(ignoredBefore)
  })
})
