import { and, count, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
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
 * The SQL of enforcement, still synchronous bun:sqlite (SQLite only): accounts, not on the store
 * yet, asks these on every signed-in request and at password sign-in, and cannot await. The rest
 * of sso's SQL is on the store (sso.repo.ts). It moves there with accounts (issue 39).
 */
export class SsoPolicyRepo {
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

  /** Whether any workspace has a set-up. */
  anyConfigured(): boolean {
    return this.db.select({ id: ssoConfigs.workspaceId }).from(ssoConfigs).limit(1).get() !== undefined
  }

  /** Whether a workspace enforces SSO and since when its password sessions are ended. */
  policy(workspaceId: string): PolicyRow {
    return {
      enforce: this.enforceOf.get({ id: workspaceId })?.enforce ?? null,
      endedBefore: this.cutoffOf.get({ id: workspaceId })?.endedBefore ?? null,
    }
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
}
