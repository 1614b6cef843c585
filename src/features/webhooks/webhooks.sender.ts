// One attempt at a delivery: the body signed per Standard Webhooks (the `standardwebhooks`
// package), POSTed through the destination guard with a timeout, redirects never followed, and at
// most a few kilobytes of the answer read (its status is all that counts; the body is not kept,
// so a webhook cannot be used to read what answers at an address).
import { Webhook } from 'standardwebhooks'
import { EgressDenied } from '../../platform/net/egress'
import { type Destinations, urlProblem, type WebhooksConfig } from './webhooks.destinations'

/** The most of an answer read before the connection is dropped. */
const MAX_ANSWER_BYTES = 4096

/** What came of one attempt. */
export interface Outcome {
  statusCode: number | null
  ok: boolean
  /** Why it failed, in words safe to show the workspace; null on success. */
  error: string | null
  durationMs: number
}

/** What is sent: the message id (stable across attempts), the time of this attempt, the body. */
export interface Message {
  id: string
  at: Date
  body: string
}

/**
 * The three Standard Webhooks headers for a message signed with each of `secrets` (`whsec_...`):
 * during a rotation the signature header holds one signature per secret, space-separated, and a
 * receiver holding either secret verifies it.
 */
export function signedHeaders(secrets: readonly string[], m: Message): Record<string, string> {
  return {
    'webhook-id': m.id,
    'webhook-timestamp': String(Math.floor(m.at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(m.id, m.at, m.body)).join(' '),
  }
}

/** Sends messages to endpoints; never throws for the receiver's failures, only for a stop of the job. */
export class Sender {
  constructor(
    private readonly config: WebhooksConfig,
    private readonly destinations: Destinations,
    private readonly version: string,
  ) {}

  /** POSTs `m` to `url` signed with `secrets`; `stop` aborts it (the job was stopped). */
  async send(url: string, secrets: readonly string[], m: Message, stop: AbortSignal): Promise<Outcome> {
    const started = performance.now()
    const took = () => Math.round(performance.now() - started)
    const problem = urlProblem(url, this.config.allow_http)
    if (problem) return { statusCode: null, ok: false, error: `Refused: ${problem}`, durationMs: 0 }
    const timeout = AbortSignal.timeout(this.config.timeout_ms)
    try {
      const res = await this.destinations.fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': `Engram-Webhooks/${this.version}`,
          ...signedHeaders(secrets, m),
        },
        body: m.body,
        signal: AbortSignal.any([stop, timeout]),
      })
      await drain(res)
      const ok = res.status >= 200 && res.status < 300
      const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''
      return {
        statusCode: res.status,
        ok,
        error: ok ? null : `HTTP ${res.status}${redirect}`,
        durationMs: took(),
      }
    } catch (e) {
      if (stop.aborted) throw e
      const error = timeout.aborted
        ? `Timed out after ${this.config.timeout_ms} ms`
        : e instanceof EgressDenied
          ? `Refused: ${e.message}`
          : `Could not connect: ${(e as Error).message}`
      return { statusCode: null, ok: false, error, durationMs: took() }
    }
  }
}

/** Reads at most MAX_ANSWER_BYTES of an answer and drops the rest. */
async function drain(res: Response): Promise<void> {
  const reader = res.body?.getReader()
  if (!reader) return
  let read = 0
  try {
    while (read < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read()
      if (done) return
      read += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}
