import type { Static } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { ApiError, fail } from '../../platform/errors/errors'
import type { HeldLease } from '../../platform/leases/held-lease'
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
import { cleanRecord, scaleRunResp } from './lib/saved-runs'
import { ScaleTestLeases } from './lib/test-lease'
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
  /** One test per workspace across processes too: the workspace's named lease. */
  private readonly leases: ScaleTestLeases

  constructor(private readonly d: ScaleDeps) {
    this.repo = new ScaleRepo(d.store)
    this.timer = d.timer ?? realTimer
    this.leases = new ScaleTestLeases(d.store, d.clock, d.random)
    this.starts = new RateLimiter(d.store, d.clock, true)
    this.hourly = { name: 'scale_tests_per_hour', max: d.limits.maxPerHour, windowMs: 3_600_000 }
  }

  /**
   * Runs a scale test, yielding its records: `start`, one per concurrency level, then `done`. One test at a time
   * per workspace, across processes too (the named lease `scale.test:<workspace>`); bounded by the configured time and request caps; stops when the client goes away.
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
    const { queries, lease } = await this.begin(ws, started, corpus, req)
    const release = this.ending(async () => {
      if (this.running.get(ws) === started) this.running.delete(ws)
      await lease.release()
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
        for await (const record of source) {
          // Renewed as records come; lost (another process took it after it lapsed): the test stops.
          await lease.keep()
          yield record
        }
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

  /**
   * `letGo` (freeing a test's slot and lease), run once however often the result is called, made
   * to resolve also what `settled` waits for once it has.
   */
  private ending(letGo: () => Promise<void>): () => void {
    let resolve = () => {}
    const end = new Promise<void>((r) => {
      resolve = r
    })
    this.ends.add(end)
    let called = false
    return () => {
      if (called) return
      called = true
      // A lease not given back (the database unreachable) lapses by itself.
      void letGo()
        .catch(() => undefined)
        .finally(() => {
          this.ends.delete(end)
          resolve()
        })
    }
  }

  /**
   * Marks a workspace's test running (refused while one is: marked before the waits below, so a
   * second start meanwhile is refused too), takes its named lease (refused while another process's
   * test holds it), counts its start and returns its queries and lease.
   */
  private async begin(
    ws: string,
    started: number,
    corpus: Parameters<EconomicsService['sample']>[0],
    req: Static<typeof ScaleTestReq>,
  ): Promise<{ queries: string[]; lease: HeldLease }> {
    const slot = this.d.limits.maxSeconds * 1000 + STALE_GRACE_MS
    const since = this.running.get(ws)
    if (since !== undefined && started - since < slot) throw fail('scale_test_in_progress')
    this.running.set(ws, started)
    let lease: HeldLease | null = null
    try {
      lease = await this.leases.take(ws, slot)
      if (!lease) throw fail('scale_test_in_progress')
      await this.countStart(ws)
      const queries = req.queries?.length
        ? req.queries
        : await this.d.economics.sample(corpus, SAMPLED_QUERIES)
      return { queries, lease }
    } catch (e) {
      if (this.running.get(ws) === started) this.running.delete(ws)
      await lease?.release()
      throw e
    }
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
