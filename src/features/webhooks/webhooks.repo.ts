import { and, asc, count, desc, eq, inArray, lt, ne, or, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { compareTimeId } from '../../platform/paging/paging'
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.tables'

/** A webhook endpoint row (times in ms; the secret sealed). */
export type EndpointRow = typeof webhookEndpoints.$inferSelect
export type DeliveryRow = typeof webhookDeliveries.$inferSelect
export type AttemptRow = typeof webhookAttempts.$inferSelect

/** Keyset position [created_at, id] continuing strictly after `after`, newest first. */
type After = readonly (string | number)[] | null

/** The only SQL naming the webhook tables, on either engine (docs/data-layer.md); writes run in the caller's unit. */
export class WebhooksRepo {
  /** A workspace's enabled endpoints: read for every event the outbox delivers. */
  private readonly enabled: Prepared<EndpointRow[]>

  constructor(private readonly store: Store) {
    this.enabled = new Prepared(store, (db) => {
      const t = this.endpoints
      return db
        .select()
        .from(t)
        .where(and(eq(t.workspaceId, sql.placeholder('ws')), eq(t.enabled, true)))
        .prepare()
    })
  }

  private get db() {
    return this.store.db
  }

  private get endpoints() {
    return this.store.table(webhookEndpoints)
  }

  private get deliveries() {
    return this.store.table(webhookDeliveries)
  }

  private get attempts() {
    return this.store.table(webhookAttempts)
  }

  async insertEndpoint(row: EndpointRow): Promise<void> {
    await this.db.insert(this.endpoints).values(row)
  }

  /** An endpoint of a workspace; another workspace's is undefined (answers 404). */
  async findEndpoint(workspaceId: string, id: string): Promise<EndpointRow | undefined> {
    const t = this.endpoints
    const rows = await this.db
      .select()
      .from(t)
      .where(and(eq(t.id, id), eq(t.workspaceId, workspaceId)))
      .limit(1)
    return rows[0]
  }

  /** Endpoints of a workspace, newest first. */
  async listEndpoints(workspaceId: string, after: After, limit: number | null): Promise<EndpointRow[]> {
    const t = this.endpoints
    const q = this.db
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), this.after(t.createdAt, t.id, after)))
      .orderBy(desc(t.createdAt), desc(t.id))
    return limit === null ? await q : await q.limit(limit)
  }

  async countEndpoints(workspaceId: string): Promise<number> {
    const t = this.endpoints
    const [r] = await this.db.select({ n: count() }).from(t).where(eq(t.workspaceId, workspaceId))
    return Number(r?.n ?? 0)
  }

  /**
   * The enabled endpoints of a workspace, oldest first (few: a workspace has at most a handful).
   * Sorted here: an ORDER BY costs SQLite a sorter even for no row (12 µs a read against 1.7), and
   * this is read for every event published and delivered.
   */
  async enabledEndpoints(workspaceId: string): Promise<EndpointRow[]> {
    const rows = await this.enabled.execute({ ws: workspaceId })
    return rows.length < 2 ? rows : rows.sort((a, b) => compareTimeId(a.createdAt, a.id, b.createdAt, b.id))
  }

  /** Deletes an endpoint with its deliveries and attempts; false when it was not there. */
  async deleteEndpoint(workspaceId: string, id: string): Promise<boolean> {
    const t = this.endpoints
    const gone = await this.db
      .delete(t)
      .where(and(eq(t.id, id), eq(t.workspaceId, workspaceId)))
      .returning({ id: t.id })
    return gone.length > 0
  }

  /** Enables an endpoint, its run of failures forgotten; false when it already was. */
  async enable(id: string): Promise<boolean> {
    const t = this.endpoints
    const rows = await this.db
      .update(t)
      .set({
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        consecutiveFailures: 0,
        failingSince: null,
      })
      .where(and(eq(t.id, id), eq(t.enabled, false)))
      .returning({ id: t.id })
    return rows.length > 0
  }

  /** Puts a new sealed secret in place, the current one kept as the previous until `until`. */
  async rotate(e: EndpointRow, sealed: string, until: number): Promise<void> {
    const t = this.endpoints
    await this.db
      .update(t)
      .set({ secretSealed: sealed, previousSecretSealed: e.secretSealed, previousSecretExpiresAt: until })
      .where(eq(t.id, e.id))
  }

  /** Disables an enabled endpoint; false when it already was. */
  async disable(id: string, reason: string, at: number): Promise<boolean> {
    const t = this.endpoints
    const rows = await this.db
      .update(t)
      .set({ enabled: false, disabledReason: reason, disabledAt: at })
      .where(and(eq(t.id, id), eq(t.enabled, true)))
      .returning({ id: t.id })
    return rows.length > 0
  }

  /**
   * Records an attempt on its endpoint: the listing's last delivery and the run of failures, counted
   * in the database (no read-then-write), and returns the endpoint as it is now.
   */
  async noteAttempt(e: EndpointRow, d: DeliveryRow, a: AttemptRow): Promise<EndpointRow> {
    const t = this.endpoints
    const failing = a.ok
      ? { consecutiveFailures: 0, failingSince: null }
      : {
          consecutiveFailures: sql`${t.consecutiveFailures} + 1`,
          failingSince: sql`coalesce(${t.failingSince}, ${a.at})`,
        }
    const rows = await this.db
      .update(t)
      .set({
        lastAt: a.at,
        lastEventType: d.eventType,
        lastAttempt: a.attempt,
        lastStatusCode: a.statusCode,
        lastOk: a.ok,
        ...failing,
      })
      .where(eq(t.id, e.id))
      .returning()
    return rows[0]!
  }

  /** Adds a delivery unless one for the same event and endpoint exists; true when added. */
  async insertDelivery(row: DeliveryRow): Promise<boolean> {
    const t = this.deliveries
    const added = await this.db.insert(t).values(row).onConflictDoNothing().returning({ id: t.id })
    return added.length > 0
  }

  /** A delivery with its endpoint, or undefined when either is gone. */
  async delivery(id: string): Promise<{ delivery: DeliveryRow; endpoint: EndpointRow } | undefined> {
    const [d, e] = [this.deliveries, this.endpoints]
    const rows = await this.db
      .select({ delivery: d, endpoint: e })
      .from(d)
      .innerJoin(e, eq(e.id, d.endpointId))
      .where(eq(d.id, id))
      .limit(1)
    return rows[0]
  }

  /** A delivery of an endpoint; another endpoint's is undefined (answers 404). */
  async findDelivery(endpointId: string, id: string): Promise<DeliveryRow | undefined> {
    const t = this.deliveries
    const rows = await this.db
      .select()
      .from(t)
      .where(and(eq(t.id, id), eq(t.endpointId, endpointId)))
      .limit(1)
    return rows[0]
  }

  /** Puts an ended delivery back to pending, due at `at`; false when it was pending already. */
  async reopen(id: string, at: number): Promise<boolean> {
    const t = this.deliveries
    const rows = await this.db
      .update(t)
      .set({ status: 'pending', nextAttemptAt: at, updatedAt: at })
      .where(and(eq(t.id, id), ne(t.status, 'pending')))
      .returning({ id: t.id })
    return rows.length > 0
  }

  /** Adds an attempt and sets its delivery's state after it. */
  async recordAttempt(a: AttemptRow, d: Partial<DeliveryRow>): Promise<DeliveryRow> {
    await this.db.insert(this.attempts).values(a).onConflictDoNothing()
    const t = this.deliveries
    const rows = await this.db.update(t).set(d).where(eq(t.id, a.deliveryId)).returning()
    return rows[0]!
  }

  /** Ends every pending delivery of an endpoint as failed (it was disabled); how many. */
  async failPending(endpointId: string, error: string, at: number): Promise<number> {
    const t = this.deliveries
    const rows = await this.db
      .update(t)
      .set({ status: 'failed', lastError: error, nextAttemptAt: null, updatedAt: at })
      .where(and(eq(t.endpointId, endpointId), eq(t.status, 'pending')))
      .returning({ id: t.id })
    return rows.length
  }

  /** Deletes the ended deliveries of an endpoint made before `before` (with their attempts); how many. */
  async pruneDeliveries(endpointId: string, before: number): Promise<number> {
    const t = this.deliveries
    const rows = await this.db
      .delete(t)
      .where(and(eq(t.endpointId, endpointId), lt(t.createdAt, before), ne(t.status, 'pending')))
      .returning({ id: t.id })
    return rows.length
  }

  /** Whether a delivery is still there (its endpoint may have been deleted during an attempt). */
  async hasDelivery(id: string): Promise<boolean> {
    const t = this.deliveries
    const rows = await this.db.select({ id: t.id }).from(t).where(eq(t.id, id)).limit(1)
    return rows.length > 0
  }

  /** Deliveries of an endpoint, newest first. */
  async listDeliveries(endpointId: string, after: After, limit: number | null): Promise<DeliveryRow[]> {
    const t = this.deliveries
    const q = this.db
      .select()
      .from(t)
      .where(and(eq(t.endpointId, endpointId), this.after(t.createdAt, t.id, after)))
      .orderBy(desc(t.createdAt), desc(t.id))
    return limit === null ? await q : await q.limit(limit)
  }

  async countDeliveries(endpointId: string): Promise<number> {
    const t = this.deliveries
    const [r] = await this.db.select({ n: count() }).from(t).where(eq(t.endpointId, endpointId))
    return Number(r?.n ?? 0)
  }

  /** The attempts of some deliveries, in order. */
  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return []
    const t = this.attempts
    return await this.db
      .select()
      .from(t)
      .where(inArray(t.deliveryId, deliveryIds))
      .orderBy(asc(t.deliveryId), asc(t.attempt))
  }

  /** The keyset condition "strictly after [at, id]" for a newest-first order; none on the first page. */
  private after(
    createdAt: typeof webhookEndpoints.createdAt | typeof webhookDeliveries.createdAt,
    id: typeof webhookEndpoints.id | typeof webhookDeliveries.id,
    after: After,
  ) {
    const [at, last] = after ?? []
    if (typeof at !== 'number' || typeof last !== 'string') return undefined
    return or(lt(createdAt, at), and(eq(createdAt, at), lt(id, last)))
  }
}
