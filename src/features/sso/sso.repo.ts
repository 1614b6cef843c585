import { and, asc, count, eq, inArray, isNull, ne } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { ssoConfigs, ssoDomains, ssoRecoveryCodes, ssoSessionCutoffs } from './sso.tables'

/** A workspace's SSO set-up (times in ms; the client secret sealed). */
export type SsoConfigRow = typeof ssoConfigs.$inferSelect
/** A recovery code row (its hash only). */
export type RecoveryCodeRow = typeof ssoRecoveryCodes.$inferSelect

/**
 * SQL of the sso feature: its four tables and nothing else, on either engine (docs/data-layer.md).
 * Enforcement's lookups, which accounts asks synchronously, are in sso.policy.repo.ts.
 */
export class SsoRepo {
  constructor(private readonly store: Store) {}

  /** The SSO set-up of a workspace, or undefined. */
  async config(workspaceId: string): Promise<SsoConfigRow | undefined> {
    const c = this.store.table(ssoConfigs)
    const rows = await this.store.db.select().from(c).where(eq(c.workspaceId, workspaceId)).limit(1)
    return rows[0]
  }

  /** Inserts or replaces a workspace's set-up (keeping its creation time). */
  async saveConfig(row: SsoConfigRow): Promise<void> {
    const c = this.store.table(ssoConfigs)
    const { workspaceId: _, createdAt: __, ...set } = row
    await this.store.db.insert(c).values(row).onConflictDoUpdate({ target: c.workspaceId, set })
  }

  /** Deletes a workspace's set-up; its domains and recovery codes go with it (cascade). */
  async deleteConfig(workspaceId: string): Promise<boolean> {
    const c = this.store.table(ssoConfigs)
    const gone = await this.store.db
      .delete(c)
      .where(eq(c.workspaceId, workspaceId))
      .returning({ id: c.workspaceId })
    return gone.length > 0
  }

  /** A workspace's domains, in order. */
  async domains(workspaceId: string): Promise<string[]> {
    const d = this.store.table(ssoDomains)
    const rows = await this.store.db
      .select({ domain: d.domain })
      .from(d)
      .where(eq(d.workspaceId, workspaceId))
      .orderBy(asc(d.domain))
    return rows.map((r) => r.domain)
  }

  /** Which of `domains` another workspace has claimed. */
  async claimedElsewhere(workspaceId: string, domains: string[]): Promise<string[]> {
    if (domains.length === 0) return []
    const d = this.store.table(ssoDomains)
    const rows = await this.store.db
      .select({ domain: d.domain })
      .from(d)
      .where(and(inArray(d.domain, domains), ne(d.workspaceId, workspaceId)))
    return rows.map((r) => r.domain)
  }

  /**
   * Replaces a workspace's domains; a domain another workspace holds throws the primary-key error
   * (which, on PostgreSQL, ends the caller's unit).
   */
  async replaceDomains(workspaceId: string, domains: string[], at: number): Promise<void> {
    const d = this.store.table(ssoDomains)
    await this.store.db.delete(d).where(eq(d.workspaceId, workspaceId))
    if (domains.length === 0) return
    await this.store.db.insert(d).values(domains.map((domain) => ({ domain, workspaceId, createdAt: at })))
  }

  /** The workspace that claimed a domain, or undefined. */
  async workspaceOfDomain(domain: string): Promise<string | undefined> {
    const d = this.store.table(ssoDomains)
    const rows = await this.store.db
      .select({ id: d.workspaceId })
      .from(d)
      .where(eq(d.domain, domain))
      .limit(1)
    return rows[0]?.id
  }

  /** Drops a workspace's codes and stores new ones (hashes only). */
  async replaceRecoveryCodes(workspaceId: string, rows: RecoveryCodeRow[]): Promise<void> {
    const r = this.store.table(ssoRecoveryCodes)
    await this.store.db.delete(r).where(eq(r.workspaceId, workspaceId))
    if (rows.length > 0) await this.store.db.insert(r).values(rows)
  }

  /** Unused recovery codes left to a workspace. */
  async recoveryCodesLeft(workspaceId: string): Promise<number> {
    const r = this.store.table(ssoRecoveryCodes)
    const rows = await this.store.db
      .select({ n: count() })
      .from(r)
      .where(and(eq(r.workspaceId, workspaceId), isNull(r.usedAt)))
    return Number(rows[0]?.n ?? 0)
  }

  /** Ends a workspace's password sessions signed in at or before `at` (ms). */
  async setCutoff(workspaceId: string, at: number): Promise<void> {
    const s = this.store.table(ssoSessionCutoffs)
    await this.store.db
      .insert(s)
      .values({ workspaceId, endedBefore: at })
      .onConflictDoUpdate({ target: s.workspaceId, set: { endedBefore: at } })
  }
}
