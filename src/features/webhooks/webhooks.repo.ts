import { and, asc, count, desc, eq, inArray, lt, ne, or, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.tables'

/** A webhook endpoint row (times in ms; the secret sealed). */
export type EndpointRow = typeof webhookEndpoints.$inferSelect
export type DeliveryRow = typeof webhookDeliveries.$inferSelect
export type AttemptRow = typeof webhookAttempts.$inferSelect

/** Keyset position [created_at, id] continuing strictly after `after`, newest first. */
type After = readonly (string | number)[] | null

/** The only SQL naming the webhook tables. */
export class WebhooksRepo {
  constructor(private readonly db: Db) {}

  insertEndpoint(row: EndpointRow): void {
    this.db.insert(webhookEndpoints).values(row).run()
  }

  /** An endpoint of a workspace; another workspace's is undefined (answers 404). */
  findEndpoint(workspaceId: string, id: string): EndpointRow | undefined {
    return this.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.workspaceId, workspaceId)))
      .get()
  }

  /** Endpoints of a workspace, newest first. */
  listEndpoints(workspaceId: string, after: After, limit: number | null): EndpointRow[] {
    const t = webhookEndpoints
    const q = this.db
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), this.after(t.createdAt, t.id, after)))
      .orderBy(desc(t.createdAt), desc(t.id))
    return limit === null ? q.all() : q.limit(limit).all()
  }

  countEndpoints(workspaceId: string): number {
    const t = webhookEndpoints
    return this.db.select({ n: count() }).from(t).where(eq(t.workspaceId, workspaceId)).get()?.n ?? 0
  }

  /** The enabled endpoints of a workspace (few: a workspace has at most a handful). */
  enabledEndpoints(workspaceId: string): EndpointRow[] {
    const t = webhookEndpoints
    return this.db
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), eq(t.enabled, true)))
      .orderBy(asc(t.createdAt), asc(t.id))
      .all()
  }

  /** Deletes an endpoint with its deliveries and attempts; false when it was not there. */
  deleteEndpoint(workspaceId: string, id: string): boolean {
    const t = webhookEndpoints
    const gone = this.db
      .delete(t)
      .where(and(eq(t.id, id), eq(t.workspaceId, workspaceId)))
      .returning({ id: t.id })
      .get()
    return gone !== undefined
  }

  /** Enables an endpoint, its run of failures forgotten; false when it already was. */
  enable(id: string): boolean {
    const t = webhookEndpoints
    const row = this.db
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
      .get()
    return row !== undefined
  }

  /** Puts a new sealed secret in place, the current one kept as the previous until `until`. */
  rotate(e: EndpointRow, sealed: string, until: number): void {
    const t = webhookEndpoints
    this.db
      .update(t)
      .set({ secretSealed: sealed, previousSecretSealed: e.secretSealed, previousSecretExpiresAt: until })
      .where(eq(t.id, e.id))
      .run()
  }

  /** Disables an enabled endpoint; false when it already was. */
  disable(id: string, reason: string, at: number): boolean {
    const t = webhookEndpoints
    const row = this.db
      .update(t)
      .set({ enabled: false, disabledReason: reason, disabledAt: at })
      .where(and(eq(t.id, id), eq(t.enabled, true)))
      .returning({ id: t.id })
      .get()
    return row !== undefined
  }

  /** Records an attempt on its endpoint: the listing's last delivery and the run of failures. */
  noteAttempt(e: EndpointRow, d: DeliveryRow, a: AttemptRow): EndpointRow {
    const t = webhookEndpoints
    const failing = a.ok
      ? { consecutiveFailures: 0, failingSince: null }
      : {
          consecutiveFailures: sql`${t.consecutiveFailures} + 1`,
          failingSince: sql`coalesce(${t.failingSince}, ${a.at})`,
        }
    return this.db
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
      .get()!
  }

  /** Adds a delivery unless one for the same event and endpoint exists; true when added. */
  insertDelivery(row: DeliveryRow): boolean {
    const added = this.db
      .insert(webhookDeliveries)
      .values(row)
      .onConflictDoNothing()
      .returning({ id: webhookDeliveries.id })
      .get()
    return added !== undefined
  }

  /** A delivery with its endpoint, or undefined when either is gone. */
  delivery(id: string): { delivery: DeliveryRow; endpoint: EndpointRow } | undefined {
    const row = this.db
      .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(eq(webhookDeliveries.id, id))
      .get()
    return row ?? undefined
  }

  /** A delivery of an endpoint; another endpoint's is undefined (answers 404). */
  findDelivery(endpointId: string, id: string): DeliveryRow | undefined {
    const t = webhookDeliveries
    return this.db
      .select()
      .from(t)
      .where(and(eq(t.id, id), eq(t.endpointId, endpointId)))
      .get()
  }

  /** Puts an ended delivery back to pending, due at `at`; false when it was pending already. */
  reopen(id: string, at: number): boolean {
    const t = webhookDeliveries
    const row = this.db
      .update(t)
      .set({ status: 'pending', nextAttemptAt: at, updatedAt: at })
      .where(and(eq(t.id, id), ne(t.status, 'pending')))
      .returning({ id: t.id })
      .get()
    return row !== undefined
  }

  /** Adds an attempt and sets its delivery's state after it. */
  recordAttempt(a: AttemptRow, d: Partial<DeliveryRow>): DeliveryRow {
    this.db.insert(webhookAttempts).values(a).onConflictDoNothing().run()
    return this.db
      .update(webhookDeliveries)
      .set(d)
      .where(eq(webhookDeliveries.id, a.deliveryId))
      .returning()
      .get()!
  }

  /** Ends every pending delivery of an endpoint as failed (it was disabled); how many. */
  failPending(endpointId: string, error: string, at: number): number {
    const t = webhookDeliveries
    return this.db
      .update(t)
      .set({ status: 'failed', lastError: error, nextAttemptAt: null, updatedAt: at })
      .where(and(eq(t.endpointId, endpointId), eq(t.status, 'pending')))
      .returning({ id: t.id })
      .all().length
  }

  /** Deletes the ended deliveries of an endpoint made before `before` (with their attempts); how many. */
  pruneDeliveries(endpointId: string, before: number): number {
    const t = webhookDeliveries
    return this.db
      .delete(t)
      .where(and(eq(t.endpointId, endpointId), lt(t.createdAt, before), ne(t.status, 'pending')))
      .returning({ id: t.id })
      .all().length
  }

  /** Whether a delivery is still there (its endpoint may have been deleted during an attempt). */
  hasDelivery(id: string): boolean {
    const t = webhookDeliveries
    return this.db.select({ id: t.id }).from(t).where(eq(t.id, id)).get() !== undefined
  }

  /** Deliveries of an endpoint, newest first. */
  listDeliveries(endpointId: string, after: After, limit: number | null): DeliveryRow[] {
    const t = webhookDeliveries
    const q = this.db
      .select()
      .from(t)
      .where(and(eq(t.endpointId, endpointId), this.after(t.createdAt, t.id, after)))
      .orderBy(desc(t.createdAt), desc(t.id))
    return limit === null ? q.all() : q.limit(limit).all()
  }

  countDeliveries(endpointId: string): number {
    const t = webhookDeliveries
    return this.db.select({ n: count() }).from(t).where(eq(t.endpointId, endpointId)).get()?.n ?? 0
  }

  /** The attempts of some deliveries, in order. */
  attemptsOf(deliveryIds: string[]): AttemptRow[] {
    if (deliveryIds.length === 0) return []
    const t = webhookAttempts
    return this.db
      .select()
      .from(t)
      .where(inArray(t.deliveryId, deliveryIds))
      .orderBy(asc(t.deliveryId), asc(t.attempt))
      .all()
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
