import { afterAll, describe, expect, test } from 'bun:test'
import { widgetApp } from './conventions.fixture'

const f = widgetApp()
const { app } = f
afterAll(() => app.close())

describe('request ids', () => {
  test('a request without X-Request-Id gets a minted one on the response and in the log line', async () => {
    const res = await app.request('/v1')
    const id = res.headers.get('x-request-id')
    expect(id).toMatch(/^req_[A-Za-z0-9]{20}$/)
    const line = app.log.lines.find((l) => l.request_id === id)
    expect(line).toMatchObject({ msg: 'request', method: 'GET', route: 'GET /v1', path: '/v1', status: 200 })
    expect(typeof line?.duration_ms).toBe('number')
  })

  test('an incoming X-Request-Id is echoed on success, on errors and inside the v1 error body', async () => {
    const ok = await app.request('/', { headers: { 'x-request-id': 'client-abc.123' } })
    expect(ok.headers.get('x-request-id')).toBe('client-abc.123')
    const missing = await app.request('/v1/nothing-here', { headers: { 'x-request-id': 'trace-42' } })
    expect(missing.headers.get('x-request-id')).toBe('trace-42')
    expect((await missing.json()).error.request_id).toBe('trace-42')
  })

  test('an X-Request-Id that could inject into logs is replaced by a minted one', async () => {
    const res = await app.request('/v1', { headers: { 'x-request-id': 'bad id\twith "quotes"' } })
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
  })
})

describe('error shapes', () => {
  test('an unknown /v1 path answers the v1 envelope with not_found', async () => {
    const res = await app.request('/v1/nope', { headers: { 'x-request-id': 'r1' } })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({
      error: { code: 'not_found', message: 'Not Found', status: 404, request_id: 'r1' },
    })
  })

  test('an unknown unversioned path answers the frozen {detail} shape', async () => {
    const res = await app.request('/nope')
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ detail: 'Not Found' })
  })

  test('a missing credential is a 401 in the shape of each mount', async () => {
    const v1 = await app.request('/v1/private', { headers: { 'x-request-id': 'r2' } })
    expect(v1.status).toBe(401)
    expect(await v1.json()).toEqual({
      error: { code: 'unauthorized', message: 'Not authenticated.', status: 401, request_id: 'r2' },
    })
    const frozen = await app.request('/private')
    expect(frozen.status).toBe(401)
    expect(await frozen.json()).toEqual({ detail: 'Not authenticated.' })
  })

  test('a handler crash is a 500 that reveals nothing internal and is logged with its stack', async () => {
    const res = await app.request('/v1/widgets', {
      method: 'POST',
      json: { name: 'boom' },
      headers: { 'x-request-id': 'r3' },
    })
    expect(res.status).toBe(500)
    const body = await res.json()
    expect(body).toEqual({
      error: { code: 'internal_error', message: 'Internal server error.', status: 500, request_id: 'r3' },
    })
    expect(JSON.stringify(body)).not.toContain('kaboom')
    const line = app.log.lines.find((l) => l.request_id === 'r3')
    expect(line?.level).toBe('error')
    expect(String(line?.error)).toContain('kaboom')
    const frozen = await app.request('/widgets', { method: 'POST', json: { name: 'boom' } })
    expect(await frozen.json()).toEqual({ detail: 'Internal server error.' })
  })

  test('a statement the database refuses is logged by its reason and stack, without the values it was given', async () => {
    const res = await app.request('/v1/widgets', {
      method: 'POST',
      json: { name: 'bad statement' },
      headers: { 'x-request-id': 'r3b' },
    })
    expect(res.status).toBe(500)
    expect(JSON.stringify(await res.json())).not.toContain('no_such_table')
    const error = String(app.log.lines.find((l) => l.request_id === 'r3b')?.error)
    expect(error).toStartWith('A database statement failed: no such table: no_such_table\n    at ')
    expect(error).not.toContain('s3cret-value')
    expect(error).not.toContain('INSERT')
  })
})

describe('validation bodies', () => {
  test('a missing and a too-long field give field-level issues in the v1 envelope', async () => {
    const res = await app.request('/v1/widgets', {
      method: 'POST',
      json: { size: 'big' },
      headers: { 'x-request-id': 'r4' },
    })
    expect(res.status).toBe(422)
    const { error } = await res.json()
    expect(error.code).toBe('validation_error')
    expect(error.status).toBe(422)
    expect(error.request_id).toBe('r4')
    expect(error.details).toContainEqual({ loc: ['body', 'name'], msg: 'Field required', type: 'missing' })
    expect(error.details).toContainEqual({
      loc: ['body', 'size'],
      msg: 'Input should be a valid integer',
      type: 'int_parsing',
    })
  })

  test('the frozen mount answers the HTTPValidationError body', async () => {
    const res = await app.request('/widgets', { method: 'POST', json: { name: 'x'.repeat(51) } })
    expect(res.status).toBe(422)
    const body = await res.json()
    expect(Object.keys(body)).toEqual(['detail'])
    expect(body.detail).toHaveLength(1)
    expect(body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_long' })
    expect(typeof body.detail[0].msg).toBe('string')
  })

  test('an empty body where one is required is a 422 naming the body', async () => {
    const res = await app.request('/widgets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(422)
    expect((await res.json()).detail[0].loc).toEqual(['body'])
  })

  test('form routes validate url-encoded fields the same way', async () => {
    const ok = await app.request('/v1/form', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=ann&password=pw',
    })
    expect(await ok.json()).toEqual({ username: 'ann' })
    const bad = await app.request('/form', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=ann',
    })
    expect(bad.status).toBe(422)
    expect((await bad.json()).detail).toEqual([
      { loc: ['body', 'password'], msg: 'Field required', type: 'missing' },
    ])
  })
})

describe('bad input never reaches a handler and writes nothing', () => {
  const before = () => ({ rows: f.count(), runs: f.executions() })
  const unchanged = (b: { rows: number; runs: number }) => {
    expect(f.count()).toBe(b.rows)
    expect(f.executions()).toBe(b.runs)
  }

  test('malformed JSON is a 400 malformed_json on /v1 and a {detail} on the frozen mount', async () => {
    const b = before()
    const res = await app.request('/v1/widgets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('malformed_json')
    const frozen = await app.request('/widgets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope}',
    })
    expect(frozen.status).toBe(400)
    expect((await frozen.json()).detail).toStartWith('The request body is not valid JSON')
    unchanged(b)
  })

  test('a wrong content type is a 415 naming what was sent', async () => {
    const b = before()
    const res = await app.request('/v1/widgets', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"name":"a"}',
    })
    expect(res.status).toBe(415)
    const { error } = await res.json()
    expect(error).toMatchObject({
      code: 'unsupported_media_type',
      message: 'Expected application/json, got text/plain.',
    })
    const form = await app.request('/form', { method: 'POST', json: { username: 'a', password: 'b' } })
    expect(form.status).toBe(415)
    unchanged(b)
  })

  test('a body over the configured limit is a 413, by declared length or by streamed length', async () => {
    const small = widgetApp({ ENGRAM_MAX_BODY_BYTES: '2048' })
    try {
      const big = JSON.stringify({ name: 'a', pad: 'x'.repeat(5000) })
      const declared = await small.app.request('/v1/widgets', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(big.length) },
        body: big,
      })
      expect(declared.status).toBe(413)
      expect((await declared.json()).error).toMatchObject({
        code: 'payload_too_large',
        details: { limit: 2048 },
      })
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(big))
          c.close()
        },
      })
      const streamed = await small.app.request('/widgets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
      })
      expect(streamed.status).toBe(413)
      expect((await streamed.json()).detail).toBe('The request body exceeds the limit of 2048 bytes.')
      expect(small.count()).toBe(0)
      expect(small.executions()).toBe(0)
    } finally {
      small.app.close()
    }
  })

  test('unknown query parameters are a 422 on both mounts', async () => {
    const v1 = await app.request('/v1/widgets?colour=red')
    expect(v1.status).toBe(422)
    expect((await v1.json()).error.details).toEqual([
      { loc: ['query', 'colour'], msg: 'Unknown query parameter', type: 'extra_forbidden' },
    ])
    const frozen = await app.request('/widgets?limit=5')
    expect(frozen.status).toBe(422)
    expect((await frozen.json()).detail[0].loc).toEqual(['query', 'limit'])
  })
})
