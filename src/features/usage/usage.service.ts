import type { Static } from '@sinclair/typebox'
import type { Clock } from '../../platform/clock/clock'
import type { Store } from '../../platform/db/store'
import type { QuestionOrigin } from '../../platform/events/events'
import type { PlanDef } from '../plans/plans.schemas'
import { prepareAddQueries, type QueryCounts, queriesBetween } from './usage.repo'
import type { BillingResp, UsageResp } from './usage.schemas'

/** What a base contributes to the usage report; filled in by the feature that owns bases. */
export interface BaseUsage {
  id: string
  name: string
  documents: number
  /** Everything the base keeps: its documents and what is built from them (cartridges). */
  storageBytes: number
  /** Its documents' own bytes: what the plan's `storage_bytes` cap counts (ingest.caps.ts). */
  documentBytes: number
}

/** Counts the usage report reads from other features, through their services. */
export interface UsageSources {
  members(workspaceId: string): number | Promise<number>
  activeKeys(workspaceId: string): number | Promise<number>
  /** The workspace's bases with what they hold (may need the object store, hence a promise). */
  bases(workspaceId: string): BaseUsage[] | Promise<BaseUsage[]>
  /** Ratings of answers given from `fromMs` to `toMs` (exclusive), by base and UTC day (YYYY-MM-DD). */
  feedback(workspaceId: string, fromMs: number, toMs: number): FeedbackCount[] | Promise<FeedbackCount[]>
  /** The workspace's plan (id, name, price, caps, rate card), read through the plans feature. */
  plan(workspaceId: string): PlanDef | undefined | Promise<PlanDef | undefined>
  /**
   * Questions taken from the plan's `queries_per_month` in the calendar month (UTC) of `atMs`: the
   * number the cap checks, read through the plans feature.
   */
  queriesUsed(workspaceId: string, atMs: number): number | Promise<number>
  /**
   * Resolves once every question answered so far is in the counters (`question.answered` is written
   * after its answer is sent: Outbox.later, then `settled`).
   */
  counted(): Promise<void>
}

/** Ratings of answers a base had on a day. */
export interface FeedbackCount {
  corpusId: string
  day: string
  up: number
  down: number
}

/** What the report counts per day and per base: questions, and ratings given to answers. */
interface Counts extends QueryCounts {
  up: number
  down: number
}

const DAYS = 30
const DAY_MS = 86_400_000

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Adds one row's counts to a key's. */
function add(to: Map<string, Counts>, key: string, n: Partial<Counts>): void {
  const at = to.get(key) ?? { queries: 0, loadTestQueries: 0, compareQueries: 0, up: 0, down: 0 }
  at.queries += n.queries ?? 0
  at.loadTestQueries += n.loadTestQueries ?? 0
  at.compareQueries += n.compareQueries ?? 0
  at.up += n.up ?? 0
  at.down += n.down ?? 0
  to.set(key, at)
}

/** Counts on the wire: `queries` are people's questions; the load is counted apart. */
function wire(n: Counts | undefined) {
  return {
    queries: n?.queries ?? 0,
    load_test_queries: n?.loadTestQueries ?? 0,
    compare_queries: n?.compareQueries ?? 0,
    feedback_up: n?.up ?? 0,
    feedback_down: n?.down ?? 0,
  }
}

/** Usage counters and the `/admin/usage` and `/admin/billing` reports. Never fails for lack of data. */
export class UsageService {
  private readonly addQueries: ReturnType<typeof prepareAddQueries>

  constructor(
    /** Where the counters are written (in the emitter's unit) and the reports read. */
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sources: UsageSources,
    /** Whether this server bills through a payment provider (`billing.mode`), for `/admin/billing`. */
    private readonly billingEnabled = false,
  ) {
    this.addQueries = prepareAddQueries(store)
  }

  /**
   * Counts answered questions for a workspace and base on the UTC day of `at` (now by default), under
   * who asked: people's questions apart from the load the scale test and compare make.
   */
  recordQueries(
    workspaceId: string,
    corpusId: string,
    n = 1,
    at = this.clock.now().getTime(),
    origin: QuestionOrigin = 'person',
  ): Promise<void> {
    return this.addQueries(workspaceId, corpusId, day(at), {
      queries: origin === 'person' ? n : 0,
      loadTestQueries: origin === 'scale_test' ? n : 0,
      compareQueries: origin === 'compare' ? n : 0,
    })
  }

  /** `GET /admin/usage`: totals, per-base breakdown and a 30-day daily series, zeros when empty. */
  async usage(workspaceId: string): Promise<Static<typeof UsageResp>> {
    return this.report(workspaceId, await this.sources.bases(workspaceId))
  }

  /** The usage report over the bases as their owner reported them. */
  private async report(workspaceId: string, bases: BaseUsage[]): Promise<Static<typeof UsageResp>> {
    const now = this.clock.now().getTime()
    const days = Array.from({ length: DAYS }, (_, i) => day(now - (DAYS - 1 - i) * DAY_MS))
    const period = { start: days[0]!, end: days[DAYS - 1]!, days: DAYS }
    await this.sources.counted()
    const rows = [
      ...(await queriesBetween(this.store, workspaceId, period.start, period.end)),
      // Ratings are read where they are kept, over the same UTC days.
      ...(await this.sources.feedback(
        workspaceId,
        Date.parse(period.start),
        Date.parse(period.end) + DAY_MS,
      )),
    ]
    const perDay = new Map<string, Counts>()
    const perBase = new Map<string, Counts>()
    for (const r of rows) {
      add(perDay, r.day, r)
      if (r.corpusId) add(perBase, r.corpusId, r)
    }
    const known = new Set(bases.map((b) => b.id))
    const breakdown = [
      ...bases.map((b) => ({
        corpus_id: b.id,
        name: b.name as string | null,
        ...wire(perBase.get(b.id)),
        documents: b.documents,
        storage_bytes: b.storageBytes,
      })),
      // Queries of bases deleted since still count; their names are gone.
      ...[...perBase.entries()]
        .filter(([id]) => !known.has(id))
        .map(([id, n]) => ({ corpus_id: id, name: null, ...wire(n), documents: 0, storage_bytes: 0 })),
    ]
    const daily = days.map((date) => ({ date, ...wire(perDay.get(date)) }))
    const sum = (k: keyof ReturnType<typeof wire>) => daily.reduce((n, d) => n + d[k], 0)
    return {
      period,
      totals: {
        queries: sum('queries'),
        load_test_queries: sum('load_test_queries'),
        compare_queries: sum('compare_queries'),
        feedback_up: sum('feedback_up'),
        feedback_down: sum('feedback_down'),
        bases: bases.length,
        documents: bases.reduce((n, b) => n + b.documents, 0),
        storage_bytes: bases.reduce((n, b) => n + b.storageBytes, 0),
        members: await this.sources.members(workspaceId),
        api_keys: await this.sources.activeKeys(workspaceId),
      },
      bases: breakdown,
      daily,
    }
  }

  /**
   * `GET /admin/billing`: the workspace's plan, its caps, use against each now and the month's
   * estimated cost: the plan's price plus its metered rates. Questions are those the cap counts
   * (taken this calendar month, UTC; one per compare; not the scale test's load), not the usage
   * counters, which are told after the fact.
   */
  async billing(workspaceId: string): Promise<Static<typeof BillingResp>> {
    const bases = await this.sources.bases(workspaceId)
    const u = await this.report(workspaceId, bases)
    // Storage against the cap, and priced, is what the cap counts: the documents' own bytes.
    const documentBytes = bases.reduce((n, b) => n + b.documentBytes, 0)
    const plan = await this.sources.plan(workspaceId)
    const monthQueries = await this.sources.queriesUsed(workspaceId, this.clock.now().getTime())
    const caps = plan?.caps
    const rates = plan?.rate_card
    const cost =
      (plan?.prices.month ?? 0) +
      ((rates?.queries_per_1000 ?? 0) * monthQueries) / 1000 +
      ((rates?.storage_gb_month ?? 0) * documentBytes) / 1024 ** 3
    return {
      plan: plan?.id ?? 'unknown',
      plan_name: plan?.name ?? 'unknown',
      billing_enabled: this.billingEnabled,
      period: u.period,
      limits: {
        bases: caps?.bases ?? null,
        documents: caps?.documents ?? null,
        queries_per_month: caps?.queries_per_month ?? null,
        seats: caps?.seats ?? null,
        storage_bytes: caps?.storage_bytes ?? null,
        api_keys: caps?.api_keys ?? null,
      },
      used: {
        bases: u.totals.bases,
        documents: u.totals.documents,
        queries_per_month: monthQueries,
        seats: u.totals.members,
        storage_bytes: documentBytes,
        api_keys: u.totals.api_keys,
      },
      usage: u.totals,
      // Cents are the smallest unit shown; rounding keeps float noise out of the report.
      estimated_cost: { amount: Math.round(cost * 100) / 100, currency: plan?.prices.currency ?? 'usd' },
    }
  }
}
