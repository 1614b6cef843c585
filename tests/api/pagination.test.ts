import { afterAll, describe, expect, test } from 'bun:test'
import { encodeCursor } from '../../src/platform/paging/paging'
import { widgetApp } from './conventions.fixture'

const f = widgetApp()
afterAll(() => f.app.close())
for (let i = 0; i < 23; i++) f.insert(`w${i}`)

describe('/v1 list pagination', () => {
  test('pages follow next_cursor until null and visit every row exactly once while rows are inserted', async () => {
    const seen: string[] = []
    const original = f.count()
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await f.app.request(`/v1/widgets?limit=5${cursor ? `&cursor=${cursor}` : ''}`)
      expect(res.status).toBe(200)
      const body = (await res.json()) as { items: { name: string }[]; next_cursor: string | null }
      expect(res.headers.get('x-next-cursor')).toBe(body.next_cursor)
      expect(Number(res.headers.get('x-total-count'))).toBe(f.count())
      seen.push(...body.items.map((w) => w.name))
      cursor = body.next_cursor
      pages++
      // New rows arrive between pages; they must neither duplicate nor hide existing ones.
      f.insert(`late${pages}`)
    } while (cursor)
    const originals = seen.filter((n) => n.startsWith('w'))
    expect(originals).toHaveLength(original)
    expect(new Set(seen).size).toBe(seen.length)
    expect(originals).toEqual(Array.from({ length: original }, (_, i) => `w${original - 1 - i}`))
    expect(pages).toBe(5)
  })

  test('limit defaults to 50', async () => {
    for (let i = 0; i < 40; i++) f.insert(`bulk${i}`)
    const res = await f.app.request('/v1/widgets')
    const body = await res.json()
    expect(body.items).toHaveLength(50)
    expect(body.next_cursor).toBeString()
  })

  test('limit bounds: 500 is accepted, 0 and 501 are 422', async () => {
    expect((await f.app.request('/v1/widgets?limit=500')).status).toBe(200)
    for (const bad of ['0', '501', 'abc', '-1', '1.5', '2e1']) {
      const res = await f.app.request(`/v1/widgets?limit=${bad}`)
      expect(res.status).toBe(422)
      const { error } = await res.json()
      expect(error.code).toBe('validation_error')
      expect(error.details[0].loc).toEqual(['query', 'limit'])
    }
  })

  test('a forged or garbled cursor is a 422 invalid_cursor', async () => {
    for (const bad of [
      'not-a-cursor',
      encodeCursor([]).slice(0, 2),
      Buffer.from('{"a":1}').toString('base64url'),
    ]) {
      const res = await f.app.request(`/v1/widgets?cursor=${bad}`)
      expect(res.status).toBe(422)
      expect((await res.json()).error.code).toBe('invalid_cursor')
    }
  })

  test('the frozen mount answers the whole list as an array', async () => {
    const res = await f.app.request('/widgets')
    const body = await res.json()
    expect(Array.isArray(body)).toBe(true)
    expect(body).toHaveLength(f.count())
    expect(res.headers.get('x-total-count')).toBeNull()
  })
})
