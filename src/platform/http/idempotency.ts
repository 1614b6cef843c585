import { createHmac } from 'node:crypto'
import { and, eq, lte, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import type { Store } from '../db/store'
import { fail } from '../errors/errors'
import { idempotencyKeys } from './idempotency.tables'

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

/** Expired records one sweep deletes at most (a sweep runs at most once a minute a process). */
export const SWEEP_BATCH = 500

/** The records' writes are quiet units: no memo keeps these rows, so none is emptied by them. */
const QUIET = { quiet: true }

/**
 * Runs requests carrying an `Idempotency-Key` at most once per tenant scope and key, on either
 * engine (docs/data-layer.md).
 *
 * A record is claimed by one upsert on its primary key (scope, key): a new key is inserted, a held
 * one is taken over only when it has expired (the update guarded by the expiry), so of two requests
 * with one key, in one process or two, one claims it (on PostgreSQL the conflict locks the row and
 * the guard is checked against its latest version). The loser waits on the winner's in-process promise and replays its stored response (or,
 * when that answer carried a secret and was not kept, is refused). A pending claim with no
 * promise here (another process runs it, or its process died) answers 409 until it ends or expires.
 */
export class IdempotencyStore {
  private readonly inflight = new Map<string, Promise<void>>()
  private lastSweep = 0

  /** `secret` keys the request fingerprints (see `fingerprint`). */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly secret: string,
  ) {}

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
    await this.maybeSweep(now)
    if (!(await this.claim(scope, key, requestHash, now))) {
      const row = await this.read(scope, key)
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
      if (response.status >= 500 || response.status === 429) await this.release(scope, key)
      else if (!keepAnswer && response.status < 400)
        await this.settle(scope, key, { state: 'spent', status: response.status })
      else {
        const headers = JSON.stringify(response.headers)
        await this.settle(scope, key, {
          state: 'done',
          status: response.status,
          headers,
          body: response.body,
        })
      }
      return { response, replayed: false }
    } catch (e) {
      await this.release(scope, key)
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

  /**
   * Claims (scope, key) for a run: a new record, or an expired one taken over. False when a live
   * record holds the key (pending, done or spent).
   */
  private async claim(scope: string, key: string, requestHash: string, now: number): Promise<boolean> {
    const t = this.store.table(idempotencyKeys)
    const fresh = { requestHash, state: 'pending' as const, createdAt: now, expiresAt: now + this.ttlMs }
    // One statement: the insert, or on the key's conflict an update guarded by the record's expiry.
    // Not an insert caught with isUniqueViolation: that would roll a unit back on every duplicate,
    // and on SQLite a synchronous write of a route not yet on the store, run between the unit's
    // queries, is on the unit's connection and would be rolled back with it.
    const claimed = await this.store.unit(
      () =>
        this.store.db
          .insert(t)
          .values({ scope, key, ...fresh })
          .onConflictDoUpdate({
            target: [t.scope, t.key],
            set: { ...fresh, status: null, headers: null, body: null },
            setWhere: lte(t.expiresAt, now),
          })
          .returning({ key: t.key }),
      QUIET,
    )
    return claimed.length > 0
  }

  /** The record of (scope, key), or undefined. */
  private async read(scope: string, key: string): Promise<Outcome | undefined> {
    const t = this.store.table(idempotencyKeys)
    const rows = await this.store.db
      .select({
        requestHash: t.requestHash,
        state: t.state,
        status: t.status,
        headers: t.headers,
        body: t.body,
        expiresAt: t.expiresAt,
      })
      .from(t)
      .where(and(eq(t.scope, scope), eq(t.key, key)))
    return rows[0]
  }

  /** Stores a run's outcome on its claim. */
  private async settle(
    scope: string,
    key: string,
    set: Pick<typeof idempotencyKeys.$inferInsert, 'state' | 'status' | 'headers' | 'body'>,
  ): Promise<void> {
    const t = this.store.table(idempotencyKeys)
    await this.store.unit(
      () =>
        this.store.db
          .update(t)
          .set(set)
          .where(and(eq(t.scope, scope), eq(t.key, key))),
      QUIET,
    )
  }

  /** Lets a claim go: the next request with the key runs. */
  private async release(scope: string, key: string): Promise<void> {
    const t = this.store.table(idempotencyKeys)
    await this.store.unit(() => this.store.db.delete(t).where(and(eq(t.scope, scope), eq(t.key, key))), QUIET)
  }

  /** At most once a minute, deletes up to SWEEP_BATCH expired records (the oldest first). */
  private async maybeSweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.sweep(now)
  }

  /** Deletes up to SWEEP_BATCH records expired at `now`; answers how many. */
  async sweep(now: number, batch = SWEEP_BATCH): Promise<number> {
    const t = this.store.table(idempotencyKeys)
    const gone = await this.store.unit(() => {
      const expired = this.store.db
        .select({ scope: t.scope, key: t.key })
        .from(t)
        .where(lte(t.expiresAt, now))
        .orderBy(t.expiresAt)
        .limit(batch)
      return this.store.db
        .delete(t)
        .where(sql`(${t.scope}, ${t.key}) in ${expired}`)
        .returning({ key: t.key })
    }, QUIET)
    return gone.length
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
