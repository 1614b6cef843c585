import type { Clock } from '../clock/clock'
import type { Db } from '../db/db'
import { fail } from '../errors/errors'

/** A response as stored for replay. */
export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

interface Row {
  request_hash: string
  state: 'pending' | 'done'
  status: number | null
  headers: string | null
  body: Uint8Array | null
  expires_at: number
}

/** Headers worth replaying; others (request id, dates) belong to the new exchange. */
const REPLAYED_HEADERS = ['content-type', 'location', 'x-total-count', 'x-next-cursor', 'retry-after']

/**
 * Runs requests carrying an `Idempotency-Key` at most once per tenant scope and key.
 *
 * The claim is a single synchronous INSERT OR IGNORE, so two concurrent duplicates cannot both
 * win it; the loser waits on the winner's in-process promise and replays its stored response.
 * A pending claim with no live promise (its process died) answers 409 until it expires.
 */
export class IdempotencyStore {
  private readonly inflight = new Map<string, Promise<void>>()
  private lastSweep = 0
  private readonly select
  private readonly claim
  private readonly finish
  private readonly release
  private readonly sweep

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    const c = db.$client
    this.select = c.query<Row, [string, string]>(
      'SELECT request_hash, state, status, headers, body, expires_at FROM idempotency_keys WHERE scope = ? AND key = ?',
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
    this.release = c.query('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?')
    this.sweep = c.query('DELETE FROM idempotency_keys WHERE expires_at <= ?')
  }

  /**
   * Executes `run` once for (scope, key, requestHash), or replays the stored outcome.
   * Returns the response and whether it was a replay.
   */
  async execute(
    scope: string,
    key: string,
    requestHash: string,
    run: () => Promise<StoredResponse>,
  ): Promise<{ response: StoredResponse; replayed: boolean }> {
    const now = this.clock.now().getTime()
    this.maybeSweep(now)
    const claimed = this.claim.run(scope, key, requestHash, now, now + this.ttlMs).changes > 0
    if (!claimed) {
      const row = this.select.get(scope, key)
      if (!row) return this.execute(scope, key, requestHash, run)
      if (row.request_hash !== requestHash) throw fail('idempotency_mismatch')
      if (row.state === 'done') return { response: decode(row), replayed: true }
      const waiting = this.inflight.get(`${scope}\u0000${key}`)
      if (!waiting) throw fail('idempotency_in_progress')
      await waiting
      return this.execute(scope, key, requestHash, run)
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
      // Server errors are not remembered: the client should be able to retry them.
      if (response.status >= 500) this.release.run(scope, key)
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
   * response of the first request with this key (marked `Idempotent-Replayed`).
   */
  async respond(
    scope: string,
    key: string,
    requestHash: string,
    run: () => Promise<Response>,
  ): Promise<Response> {
    const { response, replayed } = await this.execute(scope, key, requestHash, async () =>
      stored(await run()),
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

function decode(row: Row): StoredResponse {
  return {
    status: row.status ?? 200,
    headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
    body: row.body ?? new Uint8Array(),
  }
}
