import { createHmac } from 'node:crypto'
import type { Clock } from '../clock/clock'
import type { Store } from '../db/store'
import { fail } from '../errors/errors'
import { type Claim, IdempotencyRecords, type Outcome, type Settled } from './idempotency.records'

/** A response as stored for replay. */
export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

/** How many ended claims a process remembers (IdempotencyStore.ended): far more than run at once. */
const ENDED_KEPT = 1024

/** How records are kept and claims held. */
export interface IdempotencyOptions {
  /** How long a record is kept once its request has an outcome (`idempotency_ttl_hours`). */
  ttlMs: number
  /** How long a claim holds its key unrenewed while its request runs (`idempotency_claim_seconds`). */
  claimMs: number
  /** Keys the request fingerprints (see `fingerprint`). */
  secret: string
  /** This process's name, stable for its life; a claim's owner is it and the claim's number. */
  owner: string
  /** Calls `tick` every `ms` until the returned stop is called (tests step it; setInterval by default). */
  every?: (ms: number, tick: () => Promise<void>) => () => void
}

/** Ticks on a timer that does not keep the process alive. */
function interval(ms: number, tick: () => Promise<void>): () => void {
  const timer = setInterval(tick, ms)
  timer.unref?.()
  return () => clearInterval(timer)
}

/** A claimed key's run in this process: its claim, and a promise settled when it ends. */
interface Running {
  claim: Claim
  done: Promise<void>
}

/** Headers worth replaying; others (request id, dates) belong to the new exchange. */
const REPLAYED_HEADERS = ['content-type', 'location', 'x-total-count', 'x-next-cursor', 'retry-after']

/** Expired records one sweep deletes at most (a sweep runs at most once a minute a process). */
export const SWEEP_BATCH = 500

/**
 * Runs requests carrying an `Idempotency-Key` at most once per tenant scope and key, on either
 * engine (docs/data-layer.md, docs/api-conventions.md).
 *
 * A record is claimed by one upsert on its primary key (scope, key): a new key is inserted, a held
 * one is taken over only when it has expired, so of two requests with one key, in one process or
 * two, one claims it. A pending claim names its owner (this process and the claim's number) and
 * expires `claimMs` after it was taken or last renewed; while its request runs, this process renews
 * it every quarter of that. So a claim left by a process that died (or stalled past `claimMs`) is
 * taken over by the next request with the key, and every later write of the former owner (its
 * outcome, its release) is guarded by the owner and changes nothing.
 *
 * The loser of a claim waits on the winner's in-process promise and replays its stored response
 * (or, when that answer carried a secret and was not kept, is refused). A pending claim with no
 * promise here (another process runs it, or its process died) answers 409 until it ends or expires.
 */
export class IdempotencyStore {
  private readonly inflight = new Map<string, Running>()
  private readonly records: IdempotencyRecords
  private claims = 0
  /**
   * Claims of this process's requests that ended (settled or released) lately, oldest first: a request
   * that read one's row pending before it ended looks again rather than answer 409 (each once).
   */
  private readonly ended = new Set<string>()
  private lastSweep = 0
  private stopRenewals: (() => void) | null = null

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly o: IdempotencyOptions,
  ) {
    this.records = new IdempotencyRecords(store)
  }

  /**
   * The fingerprint of a request: an HMAC of its method, target and body under the server's
   * secret. A plain SHA-256 would keep, for a day, a fast unsalted hash of every sign-in, sign-up
   * and password-change body sent with a key, which anyone holding the database could test
   * password guesses against; keyed, it is worthless without the secret.
   */
  fingerprint(method: string, target: string, body: Uint8Array | null): string {
    return createHmac('sha256', this.o.secret)
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
    const claim = { scope, key, owner: `${this.o.owner}.${++this.claims}` }
    if (await this.records.claim(claim, requestHash, now, now + this.o.claimMs)) {
      return { response: await this.runClaimed(claim, run, keepAnswer), replayed: false }
    }
    const row = await this.records.read(scope, key)
    if (!row) return this.execute(scope, key, requestHash, run, keepAnswer)
    if (row.requestHash !== requestHash) throw fail('idempotency_mismatch')
    if (row.state === 'spent') throw fail('idempotency_key_reused')
    if (row.state === 'done') return { response: decode(row), replayed: true }
    const waiting = this.inflight.get(`${scope}\u0000${key}`)
    if (!waiting) {
      // A claim of this process's that ended while the row was read (the row read pending, the run
      // then settled and left): looked at again, it is done or free. Another process's: 409.
      if (row.owner && this.ended.delete(row.owner))
        return this.execute(scope, key, requestHash, run, keepAnswer)
      throw fail('idempotency_in_progress')
    }
    await waiting.done
    return this.execute(scope, key, requestHash, run, keepAnswer)
  }

  /**
   * Runs `run` on a claim taken, renewed while it runs, and records its outcome. When the claim
   * was taken over meanwhile (this process stalled past its expiry), the outcome is not written:
   * the record is the new owner's, and this request's client still gets the answer of its own run.
   */
  private async runClaimed(
    claim: Claim,
    run: () => Promise<StoredResponse>,
    keepAnswer: boolean,
  ): Promise<StoredResponse> {
    const id = `${claim.scope}\u0000${claim.key}`
    let settle: () => void = () => {}
    const running: Running = {
      claim,
      done: new Promise<void>((r) => {
        settle = r
      }),
    }
    this.inflight.set(id, running)
    this.renewWhileRunning()
    try {
      const response = await run()
      const until = this.clock.now().getTime() + this.o.ttlMs
      // "Try again later" answers (429, 5xx) are not the request's outcome: a retry runs again.
      if (response.status >= 500 || response.status === 429) await this.records.release(claim)
      else if (!keepAnswer && response.status < 400)
        await this.records.settle(claim, { state: 'spent', status: response.status }, until)
      else await this.records.settle(claim, outcomeOf(response), until)
      return response
    } catch (e) {
      await this.records.release(claim)
      throw e
    } finally {
      // A claim taken over by a later request of this process leaves that request's entry.
      if (this.inflight.get(id) === running) this.inflight.delete(id)
      this.ended.add(claim.owner)
      if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.values().next().value!)
      settle()
      if (this.inflight.size === 0) this.stopRenewing()
    }
  }

  /**
   * Renews every claim this process's requests hold to `claimMs` from now; answers how many were
   * still held (a claim taken over is not). Called every quarter of `claimMs` while any runs.
   */
  async renew(): Promise<number> {
    const claims = [...this.inflight.values()].map((r) => r.claim)
    return this.records.renew(claims, this.clock.now().getTime() + this.o.claimMs)
  }

  /** Starts the renewals' timer when none runs. */
  private renewWhileRunning(): void {
    if (this.stopRenewals) return
    // A failed renewal is tried again at the next tick; three ticks fail before a claim lapses.
    const every = this.o.every ?? interval
    this.stopRenewals = every(this.o.claimMs / 4, () =>
      this.renew().then(
        () => {},
        () => {},
      ),
    )
  }

  private stopRenewing(): void {
    this.stopRenewals?.()
    this.stopRenewals = null
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

  /** At most once a minute, deletes up to SWEEP_BATCH expired records (the oldest first). */
  private async maybeSweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.sweep(now)
  }

  /** Deletes up to SWEEP_BATCH records expired at `now`; answers how many. */
  sweep(now: number, batch = SWEEP_BATCH): Promise<number> {
    return this.records.sweep(now, batch)
  }
}

async function stored(res: Response): Promise<StoredResponse> {
  return {
    status: res.status,
    headers: IdempotencyStore.replayableHeaders(res.headers),
    body: new Uint8Array(await res.arrayBuffer()),
  }
}

function outcomeOf(response: StoredResponse): Settled {
  const headers = JSON.stringify(response.headers)
  return { state: 'done', status: response.status, headers, body: response.body }
}

function decode(row: Outcome): StoredResponse {
  return {
    status: row.status ?? 200,
    headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
    body: row.body ?? new Uint8Array(),
  }
}
