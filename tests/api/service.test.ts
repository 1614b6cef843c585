import { afterAll, describe, expect, test } from 'bun:test'
import { serviceRoutes } from '../../src/features/service/service.routes'
import { ApiError } from '../../src/platform/errors/errors'
import { testApp } from '../helpers/app'
import { widgetApp } from './conventions.fixture'

const app = testApp()
afterAll(() => app.close())

describe('service and versions', () => {
  test('GET / names the service, the API versions and the docs path', async () => {
    const res = await app.request('/')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      service: 'engram',
      version: expect.any(String),
      api_versions: ['1'],
      docs: '/docs',
    })
  })

  test('GET /ready answers 200 once the database answers, without a credential', async () => {
    const res = await app.request('/ready')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ready' })
    expect((await app.request('/v1/ready')).status).toBe(404)
  })

  test('GET /ready answers 503 with a delay to retry after when the database fails to answer', async () => {
    const away = Object.assign(new Error('Failed to connect'), { code: 'ERR_POSTGRES_CONNECTION_REFUSED' })
    const route = serviceRoutes({
      version: 'test',
      frozenRemovalDate: null,
      openapi: () => ({}),
      ready: () => Promise.reject(away),
    }).find((r) => r.path === '/ready')!
    const thrown = await Promise.resolve(route.handler({} as never)).catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(ApiError)
    expect((thrown as ApiError).status).toBe(503)
    expect((thrown as ApiError).headers).toEqual({ 'retry-after': '2' })
  })

  test('GET / exists unversioned only: /v1/ is the version document, not the service identity', async () => {
    const body = await (await app.request('/v1/')).json()
    expect(body.version).toBe('1')
    expect(body.service).toBeUndefined()
  })

  test('GET /v1 is the version document with no deprecations by default', async () => {
    const res = await app.request('/v1')
    expect(await res.json()).toEqual({ version: '1', deprecations: [], docs: '/docs' })
    expect(res.headers.get('deprecation')).toBeNull()
  })

  test('a scheduled removal puts Deprecation and Sunset on frozen routes and lists it in /v1', async () => {
    const dated = testApp({ env: { ENGRAM_FROZEN_REMOVAL_DATE: '2027-06-30' } })
    try {
      const frozen = await dated.request('/nope')
      expect(frozen.headers.get('deprecation')).toBe(`@${Date.UTC(2027, 5, 30) / 1000}`)
      expect(frozen.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT')
      expect(frozen.headers.get('link')).toBe('</v1>; rel="successor-version"')
      const v1 = await dated.request('/v1')
      expect(v1.headers.get('deprecation')).toBeNull()
      expect((await v1.json()).deprecations).toEqual([
        { surface: 'unversioned routes', removal_date: '2027-06-30', successor: '/v1' },
      ])
      expect((await dated.request('/')).headers.get('deprecation')).toBeNull()
    } finally {
      dated.close()
    }
  })

  test('/openapi.json describes every route under each mount with its schemas', async () => {
    const f = widgetApp()
    try {
      const doc = await (await f.app.request('/openapi.json')).json()
      expect(doc.openapi).toBe('3.1.0')
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/', '/v1', '/widgets', '/v1/widgets']))
      const v1List = doc.paths['/v1/widgets'].get
      expect(v1List.parameters.map((p: { name: string }) => p.name)).toEqual(['prefix', 'limit', 'cursor'])
      expect(v1List.responses['200'].content['application/json'].schema.required).toEqual([
        'items',
        'next_cursor',
      ])
      expect(v1List.responses.default.content['application/json'].schema.$ref).toBe(
        '#/components/schemas/ErrorEnvelope',
      )
      const frozenList = doc.paths['/widgets'].get
      expect(frozenList.responses['200'].content['application/json'].schema.type).toBe('array')
      expect(frozenList.responses['422'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/HTTPValidationError',
      )
      const create = doc.paths['/v1/widgets'].post
      expect(create.requestBody.content['application/json'].schema.required).toEqual(['name'])
      expect(doc.paths['/v1/private'].get.security).toEqual([{ bearer: [] }])
      expect(doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum).toContain(
        'idempotency_mismatch',
      )
    } finally {
      f.app.close()
    }
  })

  test('/v1/openapi.json answers the same document as /openapi.json', async () => {
    const frozen = await app.request('/openapi.json')
    const v1 = await app.request('/v1/openapi.json')
    expect(v1.status).toBe(200)
    expect(v1.headers.get('content-type')).toBe(frozen.headers.get('content-type'))
    const doc = await v1.json()
    expect(doc).toEqual(await frozen.json())
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/openapi.json', '/v1/openapi.json', '/docs', '/v1/docs']),
    )
  })

  test('/docs and /v1/docs answer the same page, which names only files of this origin', async () => {
    const res = await app.request('/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const html = await res.text()
    const v1 = await app.request('/v1/docs')
    expect(v1.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(v1.headers.get('content-security-policy')).toBe(res.headers.get('content-security-policy'))
    expect(await v1.text()).toBe(html)

    const refs = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!)
    expect(refs).toEqual([
      'data:,',
      expect.stringMatching(/^\/docs\/assets\/swagger-ui\.[0-9a-f]{12}\.css$/),
      '/openapi.json',
      expect.stringMatching(/^\/docs\/assets\/swagger-ui-bundle\.[0-9a-f]{12}\.js$/),
    ])
    expect(html).not.toMatch(/https?:\/\//)
    expect(html).toContain("fetch('/openapi.json')")
    expect(html).toContain('validatorUrl: null')
  })

  test("the page's policy allows its own files and inline code by hash: no eval, no other origin", async () => {
    const policy = (await app.request('/docs')).headers.get('content-security-policy')!
    expect(policy).toMatch(
      /^default-src 'none'; script-src 'self' 'sha256-[^']+'; style-src 'self' 'sha256-[^']+';/,
    )
    expect(policy).toContain("connect-src 'self'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).not.toMatch(/unsafe-(inline|eval)|https?:|\*/)
  })

  test("the viewer's files are served with their types and cached for good; others are a 404", async () => {
    const html = await (await app.request('/docs')).text()
    const script = /src="(\/docs\/assets\/[^"]+)"/.exec(html)![1]!
    const style = /href="(\/docs\/assets\/[^"]+)"/.exec(html)![1]!
    const js = await app.request(script)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(js.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await js.text()).toContain('SwaggerUIBundle')
    const css = await app.request(style)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const sheet = await css.text()
    expect(sheet).toContain('.swagger-ui')
    expect(sheet).not.toContain('sourceMappingURL')

    const missing = await app.request('/docs/assets/swagger-ui-bundle.000000000000.js')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ detail: 'No such file of the API reference.' })
  })
})
