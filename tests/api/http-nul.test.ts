import { afterAll, describe, expect, test } from 'bun:test'
import { refuseBodyNul } from '../../src/platform/http/nul'
import { authApp, bearer, form, issues, mounts, signUp } from './accounts.fixture'

// A NUL in a path parameter or a body is a 422 naming where it was, before any handler reads the
// database: PostgreSQL's text cannot hold one (a query binding it would fail with a 500), so both
// engines answer the same (src/platform/http/nul.ts).

const t = authApp()
afterAll(() => t.close())

describe('the NUL character', () => {
  test('in a path parameter: a 422 naming the parameter, on both mounts', async () => {
    const s = await signUp(t)
    for (const path of mounts('/corpora/a%00b')) {
      const found = await issues(await t.request(path, { headers: bearer(s.token) }), path)
      expect(found).toEqual([
        { loc: ['path', 'corpus_id'], msg: 'Must not contain the NUL character', type: 'string_unicode' },
      ])
    }
  })

  test('in a form field: a 422 naming the field', async () => {
    for (const path of mounts('/auth/login')) {
      const res = await t.request(
        path,
        form({ username: 'a\u0000b@example.com', password: 'whatever it is' }),
      )
      expect((await issues(res, path))[0]).toMatchObject({
        loc: ['body', 'username'],
        type: 'string_unicode',
      })
    }
  })

  test('in a JSON string, however deep: named; an escaped backslash before u0000 is only text', () => {
    const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
    const body = { a: [{ b: 'x\u0000y' }], c: 'fine' }
    expect(() => refuseBodyNul(bytes(body), body)).toThrow()
    try {
      refuseBodyNul(bytes(body), body)
    } catch (e) {
      expect((e as { details: unknown }).details).toEqual([
        { loc: ['body', 'a', 0, 'b'], msg: 'Must not contain the NUL character', type: 'string_unicode' },
      ])
    }
    const text = { note: '\\u0000 is how JSON writes it' }
    expect(() => refuseBodyNul(bytes(text), text)).not.toThrow()
  })
})
