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
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import { type AuditRow, rowHash } from './audit.chain'
import { auditEvents } from './audit.tables'

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
 * Data functions of the audit log. It is only ever appended to: there is no update or delete here
 * (triggers refuse both in the database), apart from chaining, once, rows written before the chain
 * existed.
 */
export class AuditRepo {
  /** The statements every append runs (one per audited event), prepared once. */
  private readonly q

  constructor(private readonly db: Db) {
    const ws = sql.placeholder('ws')
    const last = db
      .select({ seq: auditEvents.seq, hash: auditEvents.hash })
      .from(auditEvents)
      .where(and(eq(auditEvents.workspaceId, ws), isNotNull(auditEvents.seq)))
      .orderBy(desc(auditEvents.seq))
      .limit(1)
    this.q = {
      // An UPDATE that matches nothing: it takes the write lock and changes nothing.
      lock: db
        .update(auditEvents)
        .set({ seq: sql`${auditEvents.seq}` })
        .where(sql`0`)
        .prepare(),
      exists: db
        .select({ id: auditEvents.id })
        .from(auditEvents)
        .where(eq(auditEvents.id, sql.placeholder('id')))
        .prepare(),
      unchained: db
        .select({ id: auditEvents.id })
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, ws), isNull(auditEvents.hash)))
        .limit(1)
        .prepare(),
      last: last.prepare(),
      insert: db
        .insert(auditEvents)
        .values({
          id: sql.placeholder('id'),
          workspaceId: sql.placeholder('workspaceId'),
          actorType: sql.placeholder('actorType'),
          actorId: sql.placeholder('actorId'),
          action: sql.placeholder('action'),
          targetType: sql.placeholder('targetType'),
          targetId: sql.placeholder('targetId'),
          details: sql.placeholder('details'),
          ip: sql.placeholder('ip'),
          requestId: sql.placeholder('requestId'),
          createdAt: sql.placeholder('createdAt'),
          seq: sql.placeholder('seq'),
          prevHash: sql.placeholder('prevHash'),
          hash: sql.placeholder('hash'),
        })
        .prepare(),
    }
  }

  /**
   * Appends a row at the end of its workspace's chain, in one transaction (a savepoint of the
   * caller's): the place and the link read and written together, and the unique (workspace, seq)
   * index refuses a second writer that read the same end. A row whose id is already there is left
   * as it is (false).
   */
  append(row: NewAuditRow): boolean {
    return transaction(this.db, () => {
      // Take the write lock before reading the chain's end: a transaction that read first and
      // another process then wrote would be refused at its write (SQLITE_BUSY_SNAPSHOT) instead of
      // waiting its turn.
      this.q.lock.run()
      if (this.q.exists.get({ id: row.id })) return false
      if (this.q.unchained.get({ ws: row.workspaceId })) this.chainPending(row.workspaceId)
      const last = this.last(row.workspaceId)
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
      this.q.insert.run({ ...placed, hash: rowHash(placed) })
      return true
    })
  }

  /** The end of a workspace's chain. */
  last(workspaceId: string): { seq: number; hash: string } | undefined {
    const r = this.q.last.get({ ws: workspaceId })
    return r?.seq != null && r.hash != null ? { seq: r.seq, hash: r.hash } : undefined
  }

  /** Workspaces with rows written before chaining (none once start-up has chained them). */
  unchainedWorkspaces(): string[] {
    return this.db
      .selectDistinct({ ws: auditEvents.workspaceId })
      .from(auditEvents)
      .where(isNull(auditEvents.hash))
      .all()
      .map((r) => r.ws)
  }

  /**
   * Chains a workspace's rows written before the chain existed, after its chained ones, oldest
   * first by (created_at, id): the same rows always get the same places and hashes. Returns how
   * many it chained.
   */
  chainPending(workspaceId: string): number {
    return transaction(this.db, () => {
      // Sorted here, not by SQL: an ORDER BY would walk the workspace's whole log by time instead of
      // the small index of unchained rows (none, once start-up has chained them).
      const rows = this.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, workspaceId), isNull(auditEvents.hash)))
        .all()
        .sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
      let last = this.last(workspaceId)
      for (const r of rows) {
        const placed = { ...r, seq: (last?.seq ?? 0) + 1, prevHash: last?.hash ?? null }
        const hash = rowHash(placed)
        this.db
          .update(auditEvents)
          .set({ seq: placed.seq, prevHash: placed.prevHash, hash })
          .where(and(eq(auditEvents.id, r.id), isNull(auditEvents.hash)))
          .run()
        last = { seq: placed.seq, hash }
      }
      return rows.length
    })
  }

  /** A page of a workspace's rows, newest first, strictly before chain place `before`. */
  page(workspaceId: string, f: AuditFilter, before: number | null, limit: number): AuditRow[] {
    const where = [...this.where(workspaceId, f), ...(before === null ? [] : [lt(auditEvents.seq, before)])]
    return this.db
      .select()
      .from(auditEvents)
      .where(and(...where))
      .orderBy(desc(auditEvents.seq))
      .limit(limit)
      .all()
  }

  /** How many of a workspace's rows the filter keeps. */
  count(workspaceId: string, f: AuditFilter): number {
    return (
      this.db
        .select({ n: count() })
        .from(auditEvents)
        .where(and(...this.where(workspaceId, f)))
        .get()?.n ?? 0
    )
  }

  /** The next rows in chain order after place `after`, up to place `upto` (an export's or a check's snapshot). */
  batch(workspaceId: string, f: AuditFilter, after: number, upto: number, limit: number): AuditRow[] {
    return this.db
      .select()
      .from(auditEvents)
      .where(and(...this.where(workspaceId, f), gt(auditEvents.seq, after), lte(auditEvents.seq, upto)))
      .orderBy(asc(auditEvents.seq))
      .limit(limit)
      .all()
  }

  private where(workspaceId: string, f: AuditFilter): SQL[] {
    const out: SQL[] = [eq(auditEvents.workspaceId, workspaceId), isNotNull(auditEvents.seq)]
    if (f.actor !== undefined) out.push(eq(auditEvents.actorId, f.actor))
    // A family by its prefix, compared whole (LIKE would read `_` in `api_key.*` as a wildcard).
    const family = f.action?.endsWith('.*') ? f.action.slice(0, -1) : null
    if (family) out.push(sql`substr(${auditEvents.action}, 1, ${family.length}) = ${family}`)
    else if (f.action !== undefined) out.push(eq(auditEvents.action, f.action))
    if (f.actions) out.push(inArray(auditEvents.action, [...f.actions]))
    if (f.target !== undefined) out.push(eq(auditEvents.targetId, f.target))
    if (f.since !== undefined) out.push(gte(auditEvents.createdAt, f.since))
    if (f.until !== undefined) out.push(lt(auditEvents.createdAt, f.until))
    return out
  }
}
