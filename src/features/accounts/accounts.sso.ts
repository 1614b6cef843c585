// What sign-in and the session check ask of single sign-on. The sso feature keeps the answers but is
// built after accounts (it creates users through this service), so accounts declares the port and
// sso plugs its policy in from its factory (AccountsService.useSsoPolicy); until then, and on a
// server where no workspace set SSO up, nothing is enforced.

/** Who is asking (accounts.types' Caller, written out here so the two files do not import each other). */
interface Caller {
  ip: string
  requestId: string
}

/** The ways a session is made that enforcement leaves alone: the provider, and break-glass. */
export const SSO_METHODS = new Set(['sso', 'recovery_code'])

/** Single sign-on's rules, as accounts needs them (read from the store, hence promises). */
export interface SsoPolicy {
  /** Whether any workspace on this server signs in through SSO (`sso_enabled` in `/auth/config`). */
  available(): Promise<boolean>
  /** Whether the workspace refuses password sign-in (`sso_required`); read through on PostgreSQL. */
  enforces(workspaceId: string): Promise<boolean>
  /**
   * Whether a session signed in by `method` at `signedInAtSec` (Unix seconds) was ended by
   * enforcement; `securityRev` is the workspace's security revision the request's auth read found
   * (a memo of the set-up answers only at the revision it was read at).
   */
  sessionEnded(
    workspaceId: string,
    method: string,
    signedInAtSec: number,
    securityRev?: number,
  ): Promise<boolean>
  /**
   * Spends one recovery code of the workspace for an admin's sign-in (audited), in a unit of its
   * own; false when unknown or spent.
   */
  spendRecoveryCode(workspaceId: string, userId: string, code: string, caller: Caller): Promise<boolean>
}

/** The policy before sso plugs in: nothing enforced, no code accepted. */
const NONE: SsoPolicy = {
  available: async () => false,
  enforces: async () => false,
  sessionEnded: async () => false,
  spendRecoveryCode: async () => false,
}

/** The slot sign-in and the session check read the policy through, filled once the sso feature is built. */
export class SsoGate implements SsoPolicy {
  private policy: SsoPolicy = NONE

  /** Plugs in the sso feature's policy. */
  use(policy: SsoPolicy): void {
    this.policy = policy
  }

  available(): Promise<boolean> {
    return this.policy.available()
  }

  enforces(workspaceId: string): Promise<boolean> {
    return this.policy.enforces(workspaceId)
  }

  sessionEnded(
    workspaceId: string,
    method: string,
    signedInAtSec: number,
    securityRev?: number,
  ): Promise<boolean> {
    return this.policy.sessionEnded(workspaceId, method, signedInAtSec, securityRev)
  }

  spendRecoveryCode(workspaceId: string, userId: string, code: string, caller: Caller): Promise<boolean> {
    return this.policy.spendRecoveryCode(workspaceId, userId, code, caller)
  }
}
