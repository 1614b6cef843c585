import type { Static } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal'
import { type Clock, iso } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { ApiError, fail } from '../../platform/errors/errors'
import type { ListResult } from '../../platform/paging/paging'
import { keysetPage } from '../../platform/paging/paging'
import { RateLimiter, type RateLimitRule } from '../../platform/rate-limit/rate-limit'
import { type AnswersService, LOAD_PASS_HEADER, ORIGIN_HEADER } from '../answers/answers.service'
import type { CorporaService } from '../corpora/corpora.service'
import type { EconomicsService } from '../economics/economics.service'
import { eventProbe } from './lib/probe'
import {
  abortOnReturn,
  levelRamp,
  realTimer,
  runScaleTest,
  type ScaleRecord,
  type Strategy,
  type Timer,
} from './lib/runner'
import { type LoadWorker, runInWorker, spawnLoadWorker } from './lib/worker-run'
import { ScaleRepo, type ScaleRunRow } from './scale.repo'
import type { ScaleRunSaveReq, ScaleTestReq } from './scale.schemas'

/** What scale tests need: the answers to load, the economics feature's base checks and sampling. */
export interface ScaleDeps {
  store: Store
  clock: Clock
  random: Random
  corpora: CorporaService
  answers: Pick<AnswersService, 'chatStream' | 'allowance'>
  economics: Pick<EconomicsService, 'servable' | 'sample' | 'cpu'>
  limits: { maxSeconds: number; maxRequestsPerLevel: number; maxPerHour: number }
  /** Monotonic timer for the timings and the bounds (real by default; tests step a fake one). */
  timer?: Timer
  /**
   * This server's own HTTP address once it listens (null before, and in tests without a socket).
   * With it, the load goes over real HTTP from a worker thread, as clients see the server.
   */
  selfUrl?: () => string | null
  /** Starts the load worker (a Web Worker by default). */
  spawnWorker?: () => LoadWorker
}

/** Questions a scale test samples from the base when the user gives none. */
const SAMPLED_QUERIES = 8
/** Grace after the time cap before a test whose stream was never read nor closed stops blocking. */
const STALE_GRACE_MS = 30_000
/** Grace after the time cap before a load worker that went silent is terminated. */
const WATCHDOG_GRACE_MS = 10_000

/** Scale tests (streamed) and the runs users keep. */
export class ScaleService {
  private readonly repo: ScaleRepo
  private readonly timer: Timer
  /** Scale tests running, per workspace, with their start (timer ms). */
  private readonly running = new Map<string, number>()
  /** The ends of the scale tests running, each resolved as its slot is let go. */
  private readonly ends = new Set<Promise<void>>()
  /**
   * Tests started per workspace and hour. One at a time is not enough: each test makes this server
   * answer up to thousands of queries, so a workspace that starts them back to back takes the
   * server's cores from every other. Always on (not a per-IP limit that tests switch off).
   */
  private readonly starts: RateLimiter
  private readonly hourly: RateLimitRule

  constructor(private readonly d: ScaleDeps) {
    this.repo = new ScaleRepo(d.store)
    this.timer = d.timer ?? realTimer
    this.starts = new RateLimiter(d.store, d.clock, true)
    this.hourly = { name: 'scale_tests_per_hour', max: d.limits.maxPerHour, windowMs: 3_600_000 }
  }

  /**
   * Runs a scale test, yielding its records: `start`, one per concurrency level, then `done`. One test at a time
   * per workspace; bounded by the configured time and request caps; stops when the client goes away.
   * Once the server listens, the queries go over HTTP from a worker thread with the caller's
   * credential (`authorization`); otherwise they are sent in process. Ending the iteration early
   * (`return()`) aborts the test at once, even while a record is being waited for.
   */
  async scaleTestStream(
    principal: Principal,
    corpusId: string,
    req: Static<typeof ScaleTestReq>,
    authorization: string | null,
  ): Promise<AsyncGenerator<ScaleRecord>> {
    const corpus = await this.d.economics.servable(principal.workspaceId, corpusId)
    const ws = principal.workspaceId
    const started = this.timer.now()
    const queries = await this.begin(ws, started, corpus, req)
    const release = this.ending(() => {
      if (this.running.get(ws) === started) this.running.delete(ws)
    })
    const controller = new AbortController()
    const plan = {
      queries,
      levels: levelRamp(req.max_concurrency ?? 24),
      strategies: ['cart', 'rag'] as const,
      maxSeconds: this.d.limits.maxSeconds,
      maxRequestsPerLevel: this.d.limits.maxRequestsPerLevel,
    }
    const inProcess = () =>
      runScaleTest(
        { ...plan, transport: 'in_process' },
        {
          timer: this.timer,
          cpuMs: this.d.economics.cpu,
          send: (strategy: Strategy, question: string, signal: AbortSignal) =>
            eventProbe(
              // An admin's bounded load: not counted against the plan's queries_per_month.
              () =>
                this.d.answers.chatStream(
                  principal,
                  corpusId,
                  { question, strategy },
                  'scale_test',
                  'exempt',
                ),
              () => this.timer.now(),
              signal,
            ),
        },
        controller.signal,
      )
    const own = this.d.selfUrl?.() ?? null
    const source =
      own && authorization
        ? runInWorker(
            this.d.spawnWorker ?? spawnLoadWorker,
            {
              type: 'start',
              plan: { ...plan, strategies: [...plan.strategies], transport: 'http' },
              url: `${own}/v1/corpora/${encodeURIComponent(corpusId)}/chat/stream`,
              authorization,
              // Usage counts the load apart from the questions people ask; the pass keeps it off the cap.
              headers: {
                [ORIGIN_HEADER]: 'scale_test',
                [LOAD_PASS_HEADER]: this.d.answers.allowance.loadPass(),
              },
            },
            {
              signal: controller.signal,
              timer: this.timer,
              watchdogMs: this.d.limits.maxSeconds * 1000 + WATCHDOG_GRACE_MS,
              fallback: inProcess,
            },
          )
        : inProcess()
    async function* guarded(): AsyncGenerator<ScaleRecord> {
      try {
        yield* source
      } finally {
        release()
      }
    }
    return abortOnReturn(guarded(), controller, release)
  }

  /**
   * Resolves once every scale test running now has ended: one whose client went away ends once its
   * queries in flight have settled (their answers counted), so what it wrote can be read after.
   */
  async settled(): Promise<void> {
    await Promise.all([...this.ends])
  }

  /** `letGo` (freeing a test's slot), made to resolve also what `settled` waits for. */
  private ending(letGo: () => void): () => void {
    let resolve = () => {}
    const end = new Promise<void>((r) => {
      resolve = r
    })
    this.ends.add(end)
    return () => {
      letGo()
      this.ends.delete(end)
      resolve()
    }
  }

  /**
   * Marks a workspace's test running (refused while one is: marked before the waits below, so a
   * second start meanwhile is refused too), counts its start and returns its queries.
   */
  private async begin(
    ws: string,
    started: number,
    corpus: Parameters<EconomicsService['sample']>[0],
    req: Static<typeof ScaleTestReq>,
  ) {
    const since = this.running.get(ws)
    if (since !== undefined && started - since < this.d.limits.maxSeconds * 1000 + STALE_GRACE_MS) {
      throw fail('scale_test_in_progress')
    }
    this.running.set(ws, started)
    return await this.countStart(ws)
      .then(() => (req.queries?.length ? req.queries : this.d.economics.sample(corpus, SAMPLED_QUERIES)))
      .catch((e) => {
        if (this.running.get(ws) === started) this.running.delete(ws)
        throw e
      })
  }

  /** Counts a test's start against the workspace's hourly allowance; 429 with Retry-After past it. */
  private async countStart(workspaceId: string): Promise<void> {
    try {
      await this.starts.hit(this.hourly, workspaceId)
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
      const wait = Number(e.headers?.['retry-after'] ?? 0)
      throw fail(
        'rate_limited',
        `This workspace has started ${this.hourly.max} scale tests within the hour, the most allowed (setting scale_test.max_per_hour). Try again in ${wait} s.`,
        e.details,
        e.headers,
      )
    }
  }

  /** Keeps a finished scale run. */
  async saveRun(principal: Principal, corpusId: string, req: Static<typeof ScaleRunSaveReq>) {
    await this.d.corpora.get(principal.workspaceId, corpusId)
    const row: ScaleRunRow = {
      id: newId(this.d.random, 'scr'),
      workspaceId: principal.workspaceId,
      corpusId,
      createdBy: principal.userId ?? principal.keyId,
      note: req.note ?? null,
      maxConcurrency: req.max_concurrency,
      queries: JSON.stringify(req.queries),
      records: JSON.stringify(req.records.map(cleanRecord)),
      createdAt: this.d.clock.now().getTime(),
    }
    await this.d.store.unit(() => this.repo.insert(row))
    return scaleRunResp(row)
  }

  /** Saved runs of a base, newest first (paged on `/v1`). */
  async listRuns(
    principal: Principal,
    corpusId: string,
    page: { limit: number; after: readonly (string | number)[] | null } | null,
  ): Promise<ListResult<ReturnType<typeof scaleRunResp>>> {
    await this.d.corpora.get(principal.workspaceId, corpusId)
    const total = await this.repo.countRuns(corpusId)
    const rows = await this.repo.list(corpusId, page?.after ?? null, page?.limit ?? null)
    if (!page) return { items: rows.map(scaleRunResp), total, nextCursor: null }
    return keysetPage(rows, page.limit, (r) => [r.createdAt, r.id], scaleRunResp, total)
  }
}

/** The wire shape of a saved run. */
export function scaleRunResp(row: ScaleRunRow) {
  const records = JSON.parse(row.records) as { level: number }[]
  return {
    id: row.id,
    corpus_id: row.corpusId,
    queries: JSON.parse(row.queries) as string[],
    max_concurrency: row.maxConcurrency,
    levels: records.map((r) => r.level),
    records,
    note: row.note,
    created_at: iso(new Date(row.createdAt)),
  }
}

type Stats = Static<typeof ScaleRunSaveReq>['records'][number]['cart']

/** Keeps only the fields of a record this version knows, so a saved run holds nothing else. */
function cleanRecord(r: Static<typeof ScaleRunSaveReq>['records'][number]) {
  const stats = (x: Stats) => ({
    qps: x.qps,
    ok: x.ok,
    reqs: x.reqs,
    ttft: x.ttft,
    ttft_p95: x.ttft_p95,
    lat: x.lat,
    lat_p95: x.lat_p95,
    cpu_ms: x.cpu_ms ?? null,
  })
  return { level: r.level, cart: stats(r.cart), rag: stats(r.rag), ...(r.partial ? { partial: true } : {}) }
}
