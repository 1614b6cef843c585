import { afterAll, describe, expect, test } from 'bun:test'
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

  test('/docs is a self-contained page that reads /openapi.json', async () => {
    const res = await app.request('/docs')
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await res.text()
    expect(html).toContain("fetch('/openapi.json')")
    expect(html).not.toMatch(/<script[^>]+src=/)
  })
})
