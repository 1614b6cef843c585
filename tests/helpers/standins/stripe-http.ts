// The HTTP face of the stand-in: Stripe's v1 routes, `Authorization: Bearer <secret key>`,
// form-encoded bodies and queries, `Idempotency-Key` replays (same key and parameters: the first
// answer again; same key, other parameters: Stripe's idempotency_error), `expand[]`, and Stripe's
// error body. Pages the customer would see (checkout, portal, invoice) are in stripe-pages.
import { timingSafeEqual } from 'node:crypto'
import { type Form, list, parseForm } from './stripe-form'
import { stripePage } from './stripe-pages'
import { StripeFail, type StripeStore, stripeId } from './stripe-store'

/** One API request as received (for GET, `body` is the decoded query). */
export interface RecordedRequest {
  method: string
  path: string
  body: Record<string, unknown>
  idempotencyKey: string | null
}

/** A route handler: the store, the decoded parameters and the path's captures. */
export type Handler = (s: StripeStore, f: Form, ids: string[]) => unknown

/** A route: method, path pattern, handler. */
export type Route = [string, RegExp, Handler]

const json = (status: number, body: unknown, extra: Record<string, string> = {}) =>
  new Response(JSON.stringify(body, null, 2), {
    status,
    headers: { 'content-type': 'application/json', 'request-id': stripeId('req'), ...extra },
  })

/** Stripe's error body with its status. */
export function failure(e: StripeFail): Response {
  return json(e.status, { error: { type: e.type, message: e.message, param: e.param, code: e.code } })
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The key the request carries, or the 401 Stripe answers. */
function authenticate(req: Request, secretKey: string): void {
  const header = req.headers.get('authorization') ?? ''
  const key = header.startsWith('Bearer ') ? header.slice(7) : ''
  if (!key)
    throw new StripeFail(
      401,
      'You did not provide an API key. You need to provide your API key in the Authorization header.',
    )
  if (!same(key, secretKey))
    throw new StripeFail(401, `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`, null, null)
}

/** Replaces the ids at each `expand[]` path with their objects (a path may walk through lists). */
function expand(s: StripeStore, body: unknown, paths: string[]): unknown {
  const byId = (id: string): unknown =>
    [s.customers, s.products, s.prices, s.sessions, s.subscriptions, s.schedules, s.invoices]
      .map((m) => (m as Map<string, unknown>).get(id))
      .find(Boolean) ?? id
  const walk = (node: unknown, parts: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, parts))
    if (typeof node !== 'object' || node === null || parts.length === 0) return node
    const [head, ...rest] = parts as [string, ...string[]]
    const o = node as Record<string, unknown>
    let v = o[head]
    if (head === 'line_items' && o.object === 'checkout.session') v = sessionLines(s, String(o.id))
    else if (rest.length === 0 && typeof v === 'string') v = byId(v)
    return { ...o, [head]: rest.length ? walk(v, rest) : v }
  }
  return paths.reduce((b, p) => walk(b, p.split('.')), body)
}

/** A checkout session's line items as the `line_items` expansion lists them. */
function sessionLines(s: StripeStore, sessionId: string) {
  const plan = s.plans.get(sessionId)
  const data = (plan?.items ?? []).map((i, n) => {
    const price = s.prices.get(i.price)!
    const amount = price.unit_amount * i.quantity
    return {
      id: `li_${sessionId.slice(-16)}${n}`,
      object: 'item',
      amount_subtotal: amount,
      amount_total: amount,
      currency: price.currency,
      description: s.products.get(price.product)?.name ?? price.product,
      price,
      quantity: i.quantity,
    }
  })
  return { object: 'list', data, has_more: false, url: `/v1/checkout/sessions/${sessionId}/line_items` }
}

/** The fetch handler of the stand-in's server. */
export function stripeHttp(
  s: StripeStore,
  secretKey: string,
  routes: Route[],
  requests: RecordedRequest[],
): (req: Request) => Promise<Response> {
  const replays = new Map<string, { fingerprint: string; response: { status: number; body: unknown } }>()
  return async (req) => {
    const url = new URL(req.url)
    const page = await stripePage(s, req, url.pathname)
    if (page) return page
    const raw = req.method === 'GET' || req.method === 'DELETE' ? url.search.slice(1) : await req.text()
    const form = parseForm(raw)
    const key = req.headers.get('idempotency-key')
    requests.push({ method: req.method, path: url.pathname, body: form, idempotencyKey: key })
    try {
      authenticate(req, secretKey)
      const fingerprint = `${req.method} ${url.pathname} ${raw}`
      const replay = key && req.method !== 'GET' ? replays.get(key) : undefined
      if (replay && replay.fingerprint !== fingerprint)
        throw new StripeFail(
          400,
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          null,
          null,
          'idempotency_error',
        )
      if (replay) return json(replay.response.status, replay.response.body, { 'idempotent-replayed': 'true' })
      const route = routes.find(([m, re]) => m === req.method && re.test(url.pathname))
      if (!route)
        throw new StripeFail(404, `Unrecognized request URL (${req.method}: ${url.pathname}).`, null, null)
      const ids = url.pathname.match(route[1])!.slice(1)
      const result = await route[2](s, form, ids)
      const body = expand(s, JSON.parse(JSON.stringify(result)), list(form.expand, 'expand').map(String))
      if (key && req.method !== 'GET') replays.set(key, { fingerprint, response: { status: 200, body } })
      return json(200, body)
    } catch (e) {
      if (!(e instanceof StripeFail)) throw e
      // Stripe keeps 4xx answers for the key too, except for auth and idempotency failures.
      if (key && e.status === 400 && e.type !== 'idempotency_error')
        replays.set(key, {
          fingerprint: `${req.method} ${url.pathname} ${raw}`,
          response: { status: e.status, body: JSON.parse(await failure(e).text()) },
        })
      return failure(e)
    }
  }
}
