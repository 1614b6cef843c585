import { and, count, eq, isNull, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { ssoConfigs, ssoRecoveryCodes, ssoSessionCutoffs } from './sso.tables'

/** A row's fields, each null when the row is missing. */
type Nullable<T> = { [K in keyof T]: T[K] | null }

/**
 * What the session check and sign-in ask of a workspace: whether its set-up enforces SSO and its
 * password sessions' cutoff (each null when it has no such row).
 */
export type PolicyRow = Nullable<
  Pick<typeof ssoConfigs.$inferSelect, 'enforce'> & Pick<typeof ssoSessionCutoffs.$inferSelect, 'endedBefore'>
>

/**
 * The SQL of enforcement, on either engine: accounts asks these on every signed-in request (through
 * a memo, sso.policy.ts) and at password sign-in. The rest of sso's SQL is in sso.repo.ts.
 */
export class SsoPolicyRepo {
  /** Built once per handle: the enforcement lookups run on signed-in requests. */
  private readonly enforceOf: Prepared<{ enforce: boolean }[]>
  private readonly cutoffOf: Prepared<{ endedBefore: number }[]>

  constructor(private readonly store: Store) {
    const id = sql.placeholder('id')
    this.enforceOf = new Prepared(store, (db) => {
      const c = store.table(ssoConfigs)
      return db.select({ enforce: c.enforce }).from(c).where(eq(c.workspaceId, id)).limit(1).prepare()
    })
    this.cutoffOf = new Prepared(store, (db) => {
      const c = store.table(ssoSessionCutoffs)
      return db.select({ endedBefore: c.endedBefore }).from(c).where(eq(c.workspaceId, id)).limit(1).prepare()
    })
  }

  /** Whether any workspace has a set-up. */
  async anyConfigured(): Promise<boolean> {
    const c = this.store.table(ssoConfigs)
    return (await this.store.db.select({ id: c.workspaceId }).from(c).limit(1)).length > 0
  }

  /** Whether a workspace enforces SSO and since when its password sessions are ended. */
  async policy(workspaceId: string): Promise<PolicyRow> {
    const [enforce, cutoff] = [
      await this.enforceOf.execute({ id: workspaceId }),
      await this.cutoffOf.execute({ id: workspaceId }),
    ]
    return { enforce: enforce[0]?.enforce ?? null, endedBefore: cutoff[0]?.endedBefore ?? null }
  }

  /**
   * Spends an unused code of the workspace, once: the conditional UPDATE lets exactly one of two
   * concurrent uses win. Returns the code's id, or null when unknown, spent or another workspace's.
   */
  async spendRecoveryCode(
    workspaceId: string,
    hash: string,
    userId: string,
    at: number,
  ): Promise<string | null> {
    const r = this.store.table(ssoRecoveryCodes)
    const rows = await this.store.db
      .update(r)
      .set({ usedAt: at, usedBy: userId })
      .where(and(eq(r.codeHash, hash), eq(r.workspaceId, workspaceId), isNull(r.usedAt)))
      .returning({ id: r.id })
    return rows[0]?.id ?? null
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
}
