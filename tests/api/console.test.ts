import { afterAll, describe, expect, test } from 'bun:test'
import { consoleAssets } from '../../src/features/console/console.assets'
import { testApp } from '../helpers/app'

const t = testApp()
afterAll(() => t.close())

/** The console's page and every file it may load (chunks loaded on demand included). */
async function consoleResponses(): Promise<{ path: string; res: Response; body: string }[]> {
  const page = await t.request('/console/')
  const out = [{ path: '/console/', res: page, body: await page.text() }]
  for (const name of (await consoleAssets()).assets.keys()) {
    const res = await t.request(`/console/assets/${name}`)
    out.push({ path: `/console/assets/${name}`, res, body: await res.text() })
  }
  return out
}

/**
 * Strings in the bundle that look like other origins but are never fetched: the XML namespace
 * names the renderer passes to `createElementNS`, and a documentation link inside a library's
 * error message text (preact-iso's "must be used within a <LocationProvider>, see ...").
 */
const NOT_ADDRESSES = [
  /^http:\/\/www\.w3\.org\/(2000\/svg|1999\/xlink|1999\/xhtml|XML\/1998\/namespace|1998\/Math\/MathML)$/,
  /^https:\/\/github\.com\/preactjs\/preact-iso#locationprovider$/,
  // Reserved for examples (RFC 2606): a form's placeholder (an issuer, a webhook URL), never loaded from.
  /^https:\/\/[a-z0-9.-]*\bexample\.(com|org|net)(\/[^\s]*)?$/,
]

describe('the console', () => {
  test('every path under /console/ answers the app page, never cached, with a strict CSP', async () => {
    for (const path of [
      '/console/',
      '/console/bases',
      '/console/bases/cor_x/chat',
      '/console/sign-in?next=%2Fx',
    ]) {
      const res = await t.request(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("connect-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).not.toContain('unsafe-inline')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(await res.text()).toContain('<div id="app"></div>')
    }
  })

  test('/console answers a permanent redirect to /console/', async () => {
    const res = await t.request('/console')
    expect(res.status).toBe(308)
    expect(res.headers.get('location')).toBe('/console/')
  })

  test('the page runs no inline script or style; its assets have hashed names and are cached for a year', async () => {
    const [page, ...assets] = await consoleResponses()
    expect(page!.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    expect(page!.body).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i)
    // The page loads the entry script and the style sheet; the chart library is a chunk of its own.
    const linked = [...page!.body.matchAll(/(?:src|href)="\/console\/assets\/([^"]+)"/g)].map((m) => m[1])
    expect(linked.map((n) => n!.replace(/-[a-z0-9]{8}\./, '-HASH.')).sort()).toEqual([
      'main-HASH.css',
      'main-HASH.js',
    ])
    expect(assets.map((a) => a.path.replace(/-[a-z0-9]{8}\./, '-HASH.')).sort()).toEqual([
      '/console/assets/main-HASH.css',
      '/console/assets/main-HASH.js',
      '/console/assets/uPlot.esm-HASH.js',
    ])
    for (const a of assets) {
      expect(a.res.status).toBe(200)
      expect(a.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(a.res.headers.get('content-type')).toMatch(
        a.path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/,
      )
    }
    const missing = await t.request('/console/assets/main-00000000.js')
    expect(missing.status).toBe(404)
  })

  test('no console response refers to another origin: nothing is loaded from outside this server', async () => {
    for (const { path, body } of await consoleResponses()) {
      const urls = [...body.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*/gi)]
        .map((m) => m[0])
        .filter((u) => !NOT_ADDRESSES.some((ok) => ok.test(u)))
      expect({ path, urls }).toEqual({ path, urls: [] })
      expect(body).not.toMatch(/@import|fonts\.googleapis|cdn\./i)
    }
  })

  test('a browser asking for HTML at / is sent to the console; API clients still get the service document', async () => {
    const browser = await t.request('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
    expect(browser.status).toBe(302)
    expect(browser.headers.get('location')).toBe('/console/')
    const api = await t.request('/')
    expect(api.status).toBe(200)
    expect(await api.json()).toMatchObject({ service: 'engram', api_versions: ['1'] })
    const any = await t.request('/', { headers: { accept: '*/*' } })
    expect(any.status).toBe(200)
  })

  test('the console is not part of the API: it is not in the OpenAPI document', async () => {
    const doc = (await (await t.request('/openapi.json')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([])
  })
})
