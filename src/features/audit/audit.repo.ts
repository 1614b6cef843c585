import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  type SQL,
  sql,
} from 'drizzle-orm'
import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { compareTimeId } from '../../platform/paging/paging'
import { type AuditRow, rowHash } from './audit.chain'
import { auditEvents } from './audit.tables'

/** What a unit holds while it reads the end of a workspace's chain and appends to it. */
const chainKey = (workspaceId: string) => `audit.chain:${workspaceId}`

/** One audit row to append: everything but its place in the chain. */
export type NewAuditRow = Omit<typeof auditEvents.$inferInsert, 'seq' | 'prevHash' | 'hash'>

/** What a reader narrows the log to; every field optional, all of them must hold. */
export interface AuditFilter {
  /** The actor's id (a user or API key id). */
  actor?: string
  /** An action, or a family of them: `auth.*`. */
  action?: string
  /** Any of these actions (the deletion receipts). */
  actions?: readonly string[]
  /** The target's id. */
  target?: string
  /** Rows written at or after (ms). */
  since?: number
  /** Rows written before (ms). */
  until?: number
}

/**
 * Data functions of the audit log, on either engine (docs/data-layer.md). It is only ever appended
 * to: there is no update or delete here (triggers refuse both in the SQLite database), apart from
 * chaining, once, rows written before the chain existed. Every write runs in the caller's unit.
 */
export class AuditRepo {
  constructor(private readonly store: Store) {}

  private get t() {
    return this.store.table(auditEvents)
  }

  /**
   * Appends a row at the end of its workspace's chain; called in a unit, which reads the end and
   * writes the link together, holding the workspace's chain (holdInUnit) so a second writer reads
   * the end only once this one has committed (on SQLite a unit holds the write lock; on PostgreSQL
   * two transactions would otherwise read the same end, and the unique (workspace, seq) index, which
   * still refuses a fork, would fail one of them). A row whose id is already there is left as it is
   * (false).
   */
  async append(row: NewAuditRow): Promise<boolean> {
    const t = this.t
    await holdInUnit(this.store, chainKey(row.workspaceId))
    const there = await this.store.db.select({ id: t.id }).from(t).where(eq(t.id, row.id)).limit(1)
    if (there.length > 0) return false
    const unchained = await this.store.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.workspaceId, row.workspaceId), isNull(t.hash)))
      .limit(1)
    if (unchained.length > 0) await this.chainPending(row.workspaceId)
    const last = await this.last(row.workspaceId)
    const placed = {
      actorId: null,
      targetType: null,
      targetId: null,
      details: '{}',
      ip: null,
      requestId: null,
      ...row,
      seq: (last?.seq ?? 0) + 1,
      prevHash: last?.hash ?? null,
    }
    await this.store.db.insert(t).values({ ...placed, hash: rowHash(placed) })
    return true
  }

  /** The end of a workspace's chain. */
  async last(workspaceId: string): Promise<{ seq: number; hash: string } | undefined> {
    const t = this.t
    const [r] = await this.store.db
      .select({ seq: t.seq, hash: t.hash })
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), isNotNull(t.seq)))
      .orderBy(desc(t.seq))
      .limit(1)
    return r?.seq != null && r.hash != null ? { seq: r.seq, hash: r.hash } : undefined
  }

  /** Workspaces with rows written before chaining (none once start-up has chained them). */
  async unchainedWorkspaces(): Promise<string[]> {
    const t = this.t
    const rows = await this.store.db.selectDistinct({ ws: t.workspaceId }).from(t).where(isNull(t.hash))
    return rows.map((r) => r.ws)
  }

  /**
   * Chains a workspace's rows written before the chain existed, after its chained ones, oldest
   * first by (created_at, id): the same rows always get the same places and hashes. Called in a
   * unit; returns how many it chained.
   */
  async chainPending(workspaceId: string): Promise<number> {
    const t = this.t
    await holdInUnit(this.store, chainKey(workspaceId))
    // Sorted here, not by SQL: an ORDER BY would walk the workspace's whole log by time instead of
    // the small index of unchained rows (none, once start-up has chained them). The ids compare by
    // code unit, not by the database's collation, so both engines give the same order.
    const rows = (
      await this.store.db
        .select()
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), isNull(t.hash)))
    ).sort((x, y) => compareTimeId(x.createdAt, x.id, y.createdAt, y.id))
    let last = await this.last(workspaceId)
    for (const r of rows) {
      const placed = { ...r, seq: (last?.seq ?? 0) + 1, prevHash: last?.hash ?? null }
      const hash = rowHash(placed)
      await this.store.db
        .update(t)
        .set({ seq: placed.seq, prevHash: placed.prevHash, hash })
        .where(and(eq(t.id, r.id), isNull(t.hash)))
      last = { seq: placed.seq, hash }
    }
    return rows.length
  }

  /** Whether a workspace has rows not chained yet (read outside a unit, before opening one). */
  async hasUnchained(workspaceId: string): Promise<boolean> {
    const t = this.t
    const rows = await this.store.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), isNull(t.hash)))
      .limit(1)
    return rows.length > 0
  }

  /** A page of a workspace's rows, newest first, strictly before chain place `before`; all when `limit` is null. */
  async page(
    workspaceId: string,
    f: AuditFilter,
    before: number | null,
    limit: number | null,
  ): Promise<AuditRow[]> {
    const t = this.t
    const where = [...this.where(workspaceId, f), ...(before === null ? [] : [lt(t.seq, before)])]
    const q = this.store.db
      .select()
      .from(t)
      .where(and(...where))
      .orderBy(desc(t.seq))
    return limit === null ? await q : await q.limit(limit)
  }

  /** How many of a workspace's rows the filter keeps. */
  async count(workspaceId: string, f: AuditFilter): Promise<number> {
    const [r] = await this.store.db
      .select({ n: count() })
      .from(this.t)
      .where(and(...this.where(workspaceId, f)))
    return Number(r?.n ?? 0)
  }

  /** The next rows in chain order after place `after`, up to place `upto` (an export's or a check's snapshot). */
  async batch(
    workspaceId: string,
    f: AuditFilter,
    after: number,
    upto: number,
    limit: number,
  ): Promise<AuditRow[]> {
    const t = this.t
    return await this.store.db
      .select()
      .from(t)
      .where(and(...this.where(workspaceId, f), gt(t.seq, after), lte(t.seq, upto)))
      .orderBy(asc(t.seq))
      .limit(limit)
  }

  private where(workspaceId: string, f: AuditFilter): SQL[] {
    const t = this.t
    const out: SQL[] = [eq(t.workspaceId, workspaceId), isNotNull(t.seq)]
    if (f.actor !== undefined) out.push(eq(t.actorId, f.actor))
    // A family by its prefix, compared whole (LIKE would read `_` in `api_key.*` as a wildcard).
    const family = f.action?.endsWith('.*') ? f.action.slice(0, -1) : null
    if (family) out.push(sql`substr(${t.action}, 1, ${family.length}) = ${family}`)
    else if (f.action !== undefined) out.push(eq(t.action, f.action))
    if (f.actions) out.push(inArray(t.action, [...f.actions]))
    if (f.target !== undefined) out.push(eq(t.targetId, f.target))
    if (f.since !== undefined) out.push(gte(t.createdAt, f.since))
    if (f.until !== undefined) out.push(lt(t.createdAt, f.until))
    return out
  }
}
