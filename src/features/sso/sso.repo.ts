import { and, asc, count, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { ssoConfigs, ssoDomains, ssoRecoveryCodes, ssoSessionCutoffs } from './sso.tables'

/** A workspace's SSO set-up (times in ms; the client secret sealed). */
export type SsoConfigRow = typeof ssoConfigs.$inferSelect
/** A recovery code row (its hash only). */
export type RecoveryCodeRow = typeof ssoRecoveryCodes.$inferSelect

/** A row's fields, each null when the row is missing. */
type Nullable<T> = { [K in keyof T]: T[K] | null }

/**
 * What the session check and sign-in ask of a workspace: whether its set-up enforces SSO and its
 * password sessions' cutoff (each null when it has no such row).
 */
export type PolicyRow = Nullable<
  Pick<SsoConfigRow, 'enforce'> & Pick<typeof ssoSessionCutoffs.$inferSelect, 'endedBefore'>
>

/** SQL of the sso feature: its four tables and nothing else. */
export class SsoRepo {
  /** Prepared once: the enforcement lookups run on signed-in requests (memoised per commit by the caller). */
  private readonly enforceOf
  private readonly cutoffOf

  constructor(private readonly db: Db) {
    const id = sql.placeholder('id')
    this.enforceOf = db
      .select({ enforce: ssoConfigs.enforce })
      .from(ssoConfigs)
      .where(eq(ssoConfigs.workspaceId, id))
      .prepare()
    this.cutoffOf = db
      .select({ endedBefore: ssoSessionCutoffs.endedBefore })
      .from(ssoSessionCutoffs)
      .where(eq(ssoSessionCutoffs.workspaceId, id))
      .prepare()
  }

  /** The SSO set-up of a workspace, or undefined. */
  config(workspaceId: string): SsoConfigRow | undefined {
    return this.db.select().from(ssoConfigs).where(eq(ssoConfigs.workspaceId, workspaceId)).get()
  }

  /** Whether any workspace has a set-up. */
  anyConfigured(): boolean {
    return this.db.select({ id: ssoConfigs.workspaceId }).from(ssoConfigs).limit(1).get() !== undefined
  }

  /** Inserts or replaces a workspace's set-up (keeping its creation time). */
  saveConfig(row: SsoConfigRow): void {
    const { workspaceId: _, createdAt: __, ...set } = row
    this.db.insert(ssoConfigs).values(row).onConflictDoUpdate({ target: ssoConfigs.workspaceId, set }).run()
  }

  /** Deletes a workspace's set-up; its domains and recovery codes go with it (cascade). */
  deleteConfig(workspaceId: string): boolean {
    const gone = this.db
      .delete(ssoConfigs)
      .where(eq(ssoConfigs.workspaceId, workspaceId))
      .returning({ id: ssoConfigs.workspaceId })
      .all()
    return gone.length > 0
  }

  /** A workspace's domains, in order. */
  domains(workspaceId: string): string[] {
    return this.db
      .select({ domain: ssoDomains.domain })
      .from(ssoDomains)
      .where(eq(ssoDomains.workspaceId, workspaceId))
      .orderBy(asc(ssoDomains.domain))
      .all()
      .map((r) => r.domain)
  }

  /** Which of `domains` another workspace has claimed. */
  claimedElsewhere(workspaceId: string, domains: string[]): string[] {
    if (domains.length === 0) return []
    return this.db
      .select({ domain: ssoDomains.domain })
      .from(ssoDomains)
      .where(and(inArray(ssoDomains.domain, domains), ne(ssoDomains.workspaceId, workspaceId)))
      .all()
      .map((r) => r.domain)
  }

  /** Replaces a workspace's domains; a domain another workspace holds throws the primary-key error. */
  replaceDomains(workspaceId: string, domains: string[], at: number): void {
    this.db.delete(ssoDomains).where(eq(ssoDomains.workspaceId, workspaceId)).run()
    if (domains.length === 0) return
    this.db
      .insert(ssoDomains)
      .values(domains.map((domain) => ({ domain, workspaceId, createdAt: at })))
      .run()
  }

  /** The workspace that claimed a domain, or undefined. */
  workspaceOfDomain(domain: string): string | undefined {
    return this.db
      .select({ id: ssoDomains.workspaceId })
      .from(ssoDomains)
      .where(eq(ssoDomains.domain, domain))
      .get()?.id
  }

  /** Drops a workspace's codes and stores new ones (hashes only). */
  replaceRecoveryCodes(workspaceId: string, rows: RecoveryCodeRow[]): void {
    this.db.delete(ssoRecoveryCodes).where(eq(ssoRecoveryCodes.workspaceId, workspaceId)).run()
    if (rows.length > 0) this.db.insert(ssoRecoveryCodes).values(rows).run()
  }

  /**
   * Spends an unused code of the workspace, once: the conditional UPDATE lets exactly one of two
   * concurrent uses win. Returns the code's id, or null when unknown, spent or another workspace's.
   */
  spendRecoveryCode(workspaceId: string, hash: string, userId: string, at: number): string | null {
    const row = this.db
      .update(ssoRecoveryCodes)
      .set({ usedAt: at, usedBy: userId })
      .where(
        and(
          eq(ssoRecoveryCodes.codeHash, hash),
          eq(ssoRecoveryCodes.workspaceId, workspaceId),
          isNull(ssoRecoveryCodes.usedAt),
        ),
      )
      .returning({ id: ssoRecoveryCodes.id })
      .get()
    return row?.id ?? null
  }

  /** Unused recovery codes left to a workspace. */
  recoveryCodesLeft(workspaceId: string): number {
    const row = this.db
      .select({ n: count() })
      .from(ssoRecoveryCodes)
      .where(and(eq(ssoRecoveryCodes.workspaceId, workspaceId), isNull(ssoRecoveryCodes.usedAt)))
      .get()
    return row?.n ?? 0
  }

  /** Ends a workspace's password sessions signed in at or before `at` (ms). */
  setCutoff(workspaceId: string, at: number): void {
    this.db
      .insert(ssoSessionCutoffs)
      .values({ workspaceId, endedBefore: at })
      .onConflictDoUpdate({ target: ssoSessionCutoffs.workspaceId, set: { endedBefore: at } })
      .run()
  }

  /** Whether a workspace enforces SSO and since when its password sessions are ended. */
  policy(workspaceId: string): PolicyRow {
    return {
      enforce: this.enforceOf.get({ id: workspaceId })?.enforce ?? null,
      endedBefore: this.cutoffOf.get({ id: workspaceId })?.endedBefore ?? null,
    }
  }
}
