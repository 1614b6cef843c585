import type { Static } from '@sinclair/typebox'
import type { Clock } from '../../platform/clock/clock'
import type { Db } from '../../platform/db/db'
import { prepareAddQueries, queriesBetween } from './usage.repo'
import type { BillingResp, UsageResp } from './usage.schemas'

/** What a base contributes to the usage report; filled in by the feature that owns bases. */
export interface BaseUsage {
  id: string
  name: string
  documents: number
  storageBytes: number
}

/** Counts the usage report reads from other features, through their services. */
export interface UsageSources {
  members(workspaceId: string): number
  activeKeys(workspaceId: string): number
  /** The workspace's bases with what they hold (may need the object store, hence a promise). */
  bases(workspaceId: string): BaseUsage[] | Promise<BaseUsage[]>
}

const DAYS = 30
const DAY_MS = 86_400_000

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Usage counters and the `/admin/usage` and `/admin/billing` reports. Never fails for lack of data. */
export class UsageService {
  private readonly addQueries: ReturnType<typeof prepareAddQueries>

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sources: UsageSources,
  ) {
    this.addQueries = prepareAddQueries(db)
  }

  /** Counts answered questions for a workspace and base on the UTC day of `at` (now by default). */
  recordQueries(workspaceId: string, corpusId: string, n = 1, at = this.clock.now().getTime()): void {
    this.addQueries(workspaceId, corpusId, day(at), n)
  }

  /** `GET /admin/usage`: totals, per-base breakdown and a 30-day daily series, zeros when empty. */
  async usage(workspaceId: string): Promise<Static<typeof UsageResp>> {
    const now = this.clock.now().getTime()
    const days = Array.from({ length: DAYS }, (_, i) => day(now - (DAYS - 1 - i) * DAY_MS))
    const period = { start: days[0]!, end: days[DAYS - 1]!, days: DAYS }
    const rows = queriesBetween(this.db, workspaceId, period.start, period.end)
    const perDay = new Map<string, number>()
    const perBase = new Map<string, number>()
    for (const r of rows) {
      perDay.set(r.day, (perDay.get(r.day) ?? 0) + r.queries)
      if (r.corpusId) perBase.set(r.corpusId, (perBase.get(r.corpusId) ?? 0) + r.queries)
    }
    const bases = await this.sources.bases(workspaceId)
    const known = new Set(bases.map((b) => b.id))
    const breakdown = [
      ...bases.map((b) => ({
        corpus_id: b.id,
        name: b.name as string | null,
        queries: perBase.get(b.id) ?? 0,
        documents: b.documents,
        storage_bytes: b.storageBytes,
      })),
      // Queries of bases deleted since still count; their names are gone.
      ...[...perBase.entries()]
        .filter(([id]) => !known.has(id))
        .map(([id, queries]) => ({ corpus_id: id, name: null, queries, documents: 0, storage_bytes: 0 })),
    ]
    const daily = days.map((date) => ({ date, queries: perDay.get(date) ?? 0 }))
    return {
      period,
      totals: {
        queries: daily.reduce((n, d) => n + d.queries, 0),
        bases: bases.length,
        documents: bases.reduce((n, b) => n + b.documents, 0),
        storage_bytes: bases.reduce((n, b) => n + b.storageBytes, 0),
        members: this.sources.members(workspaceId),
        api_keys: this.sources.activeKeys(workspaceId),
      },
      bases: breakdown,
      daily,
    }
  }

  /** `GET /admin/billing`: until billing lands, every workspace is on the beta plan with no caps. */
  async billing(workspaceId: string): Promise<Static<typeof BillingResp>> {
    const u = await this.usage(workspaceId)
    return {
      plan: 'beta',
      billing_enabled: false,
      period: u.period,
      limits: { bases: null, documents: null, queries_per_month: null, seats: null, storage_bytes: null },
      usage: u.totals,
      estimated_cost: { amount: 0, currency: 'usd' },
    }
  }
}
