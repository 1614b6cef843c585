import { createHmac } from 'node:crypto'
import type { Clock } from '../clock/clock'
import type { Db } from '../db/db'
import { fail } from '../errors/errors'
import type { idempotencyKeys } from './idempotency.tables'

/** A response as stored for replay. */
export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

/**
 * A stored outcome as `select` reads it. Its state is `pending` while the first request runs;
 * `done` with its answer for replay; `spent` when the answer carried a secret: only the fact that
 * the key was used is kept, never the answer.
 */
type Outcome = Pick<
  typeof idempotencyKeys.$inferSelect,
  'requestHash' | 'state' | 'status' | 'headers' | 'body' | 'expiresAt'
>

/** Headers worth replaying; others (request id, dates) belong to the new exchange. */
const REPLAYED_HEADERS = ['content-type', 'location', 'x-total-count', 'x-next-cursor', 'retry-after']

/**
 * Runs requests carrying an `Idempotency-Key` at most once per tenant scope and key.
 *
 * The claim is a single synchronous INSERT OR IGNORE, so two concurrent duplicates cannot both
 * win it; the loser waits on the winner's in-process promise and replays its stored response
 * (or, when that answer carried a secret and was not kept, is refused).
 * A pending claim with no live promise (its process died) answers 409 until it expires.
 */
export class IdempotencyStore {
  private readonly inflight = new Map<string, Promise<void>>()
  private lastSweep = 0
  private readonly select
  private readonly claim
  private readonly finish
  private readonly spend
  private readonly release
  private readonly sweep

  /** `secret` keys the request fingerprints (see `fingerprint`). */
  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly secret: string,
  ) {
    const c = db.$client
    this.select = c.query<Outcome, [string, string]>(
      `SELECT request_hash AS requestHash, state, status, headers, body, expires_at AS expiresAt
       FROM idempotency_keys WHERE scope = ? AND key = ?`,
    )
    this.claim = c.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at, expires_at)
       VALUES (?, ?, ?, 'pending', ?, ?)
       ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'pending',
         status = NULL, headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
       WHERE idempotency_keys.expires_at <= excluded.created_at`,
    )
    this.finish = c.query(
      "UPDATE idempotency_keys SET state = 'done', status = ?, headers = ?, body = ? WHERE scope = ? AND key = ?",
    )
    this.spend = c.query(
      "UPDATE idempotency_keys SET state = 'spent', status = ? WHERE scope = ? AND key = ?",
    )
    this.release = c.query('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?')
    this.sweep = c.query('DELETE FROM idempotency_keys WHERE expires_at <= ?')
  }

  /**
   * The fingerprint of a request: an HMAC of its method, target and body under the server's
   * secret. A plain SHA-256 would keep, for a day, a fast unsalted hash of every sign-in, sign-up
   * and password-change body sent with a key, which anyone holding the database could test
   * password guesses against; keyed, it is worthless without the secret.
   */
  fingerprint(method: string, target: string, body: Uint8Array | null): string {
    return createHmac('sha256', this.secret)
      .update(`${method}\n${target}\n`)
      .update(body ?? new Uint8Array())
      .digest('hex')
  }

  /**
   * Executes `run` once for (scope, key, requestHash), or replays the stored outcome.
   * Returns the response and whether it was a replay. With `keepAnswer: false` (an answer that
   * carries a secret) a success is not stored: a later request with the key is refused with 409
   * `idempotency_key_reused` instead of replayed. Error answers carry no secret and are stored.
   */
  async execute(
    scope: string,
    key: string,
    requestHash: string,
    run: () => Promise<StoredResponse>,
    keepAnswer = true,
  ): Promise<{ response: StoredResponse; replayed: boolean }> {
    const now = this.clock.now().getTime()
    this.maybeSweep(now)
    const claimed = this.claim.run(scope, key, requestHash, now, now + this.ttlMs).changes > 0
    if (!claimed) {
      const row = this.select.get(scope, key)
      if (!row) return this.execute(scope, key, requestHash, run, keepAnswer)
      if (row.requestHash !== requestHash) throw fail('idempotency_mismatch')
      if (row.state === 'spent') throw fail('idempotency_key_reused')
      if (row.state === 'done') return { response: decode(row), replayed: true }
      const waiting = this.inflight.get(`${scope}\u0000${key}`)
      if (!waiting) throw fail('idempotency_in_progress')
      await waiting
      return this.execute(scope, key, requestHash, run, keepAnswer)
    }

    const id = `${scope}\u0000${key}`
    let settle: () => void = () => {}
    this.inflight.set(
      id,
      new Promise<void>((r) => {
        settle = r
      }),
    )
    try {
      const response = await run()
      // "Try again later" answers (429, 5xx) are not the request's outcome: a retry runs again.
      if (response.status >= 500 || response.status === 429) this.release.run(scope, key)
      else if (!keepAnswer && response.status < 400) this.spend.run(response.status, scope, key)
      else this.finish.run(response.status, JSON.stringify(response.headers), response.body, scope, key)
      return { response, replayed: false }
    } catch (e) {
      this.release.run(scope, key)
      throw e
    } finally {
      this.inflight.delete(id)
      settle()
    }
  }

  /**
   * The answer to a request carrying an Idempotency-Key: `run`'s response, stored, or the stored
   * response of the first request with this key (marked `Idempotent-Replayed`). With
   * `keepAnswer: false` a successful answer is never stored (see `execute`).
   */
  async respond(
    scope: string,
    key: string,
    requestHash: string,
    run: () => Promise<Response>,
    keepAnswer = true,
  ): Promise<Response> {
    const { response, replayed } = await this.execute(
      scope,
      key,
      requestHash,
      async () => stored(await run()),
      keepAnswer,
    )
    const headers = replayed ? { ...response.headers, 'idempotent-replayed': 'true' } : response.headers
    return new Response(response.body.length > 0 ? (response.body as unknown as BodyInit) : null, {
      status: response.status,
      headers,
    })
  }

  /** Picks the headers of a response that a replay should carry. */
  static replayableHeaders(headers: Headers): Record<string, string> {
    const out: Record<string, string> = {}
    for (const name of REPLAYED_HEADERS) {
      const v = headers.get(name)
      if (v !== null) out[name] = v
    }
    return out
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    this.sweep.run(now)
  }
}

async function stored(res: Response): Promise<StoredResponse> {
  return {
    status: res.status,
    headers: IdempotencyStore.replayableHeaders(res.headers),
    body: new Uint8Array(await res.arrayBuffer()),
  }
}

function decode(row: Outcome): StoredResponse {
  return {
    status: row.status ?? 200,
    headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
    body: row.body ?? new Uint8Array(),
  }
}
