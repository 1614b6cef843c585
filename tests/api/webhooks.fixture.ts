import { setSystemTime } from 'bun:test'
import { Webhook } from 'standardwebhooks'

/** What a receiver does with the next request: answer with a status, or hold it until released. */
export type Behaviour = { status: number; location?: string } | 'hang'

/** A request the receiver took, and what its check of the signature said. */
export interface Received {
  id: string
  timestamp: string
  signature: string
  headers: Record<string, string>
  body: string
  /** The parsed payload when the signature and timestamp checked out; null otherwise. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | null
  /** Why the check failed ("Message timestamp too old", "No matching signature found"). */
  rejected: string | null
  /** The status the receiver answered (none for a request still held). */
  status: number | null
}

/**
 * A webhook receiver on loopback, as a customer would write one: every request is verified with
 * the `standardwebhooks` package against the endpoint's secret (signature, and a timestamp within
 * five minutes of the receiver's clock) and refused with 400 when it does not check out; what it
 * answers otherwise is set by the test, one behaviour per request, then 200. `now` is the
 * receiver's clock (the test app's manual clock, so both sides agree on the time).
 */
export function receiver(now: () => Date = () => new Date()) {
  let secret = ''
  const plan: Behaviour[] = []
  const received: Received[] = []
  const held: (() => void)[] = []
  const waiters: (() => void)[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const body = await req.text()
      const headers = Object.fromEntries(req.headers.entries())
      const r: Received = {
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        headers,
        body,
        ...check(body, headers),
        status: null,
      }
      received.push(r)
      for (const w of waiters.splice(0)) w()
      if (r.rejected) return answer(r, 400)
      const next = plan.shift() ?? { status: 200 }
      if (next === 'hang') {
        await new Promise<void>((resolve) => held.push(resolve))
        return answer(r, 200)
      }
      return answer(r, next.status, next.location)
    },
  })
  function answer(r: Received, status: number, location?: string): Response {
    r.status = status
    return new Response(status < 300 ? 'ok' : 'no', { status, headers: location ? { location } : {} })
  }
  function check(body: string, headers: Record<string, string>): Pick<Received, 'payload' | 'rejected'> {
    // The package reads the time from Date.now(): the receiver's clock for this one check.
    setSystemTime(now())
    try {
      return { payload: new Webhook(secret).verify(body, headers) as Received['payload'], rejected: null }
    } catch (e) {
      return { payload: null, rejected: (e as Error).message }
    } finally {
      setSystemTime()
    }
  }
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    received,
    /** The endpoint's secret, once the test has subscribed it. */
    set secret(s: string) {
      secret = s
    },
    /** What the next requests get, in order; 200 after these. */
    plan(...b: Behaviour[]) {
      plan.push(...b)
    },
    /** Forgets what was planned: every request from now on is answered 200. */
    clear() {
      plan.length = 0
    },
    /** Lets held requests go (answered 200, if the sender still listens). */
    release() {
      for (const r of held.splice(0)) r()
    },
    /** Resolves once `n` requests have arrived (a real wait: the sender runs in the background). */
    async arrived(n: number): Promise<void> {
      while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    /** Replays a request exactly as it came (a captured message sent again by someone else). */
    async replay(r: Received): Promise<Response> {
      return fetch(`http://127.0.0.1:${server.port}/hooks`, {
        method: 'POST',
        headers: r.headers,
        body: r.body,
      })
    },
    stop() {
      this.release()
      server.stop(true)
    },
  }
}

export type Receiver = ReturnType<typeof receiver>
