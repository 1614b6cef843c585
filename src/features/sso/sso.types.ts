// What the sso feature is built from, kept apart from its service so the parts it is made of
// (settings, policy, sign-in) can name it without importing the service back.
import type { Static } from '@sinclair/typebox'
import type { OidcRelyingParty } from '../../platform/auth/oidc'
import type { Clock } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import type { Random } from '../../platform/crypto/random'
import type { Sealer } from '../../platform/crypto/sealed'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import type { AccountsService } from '../accounts/accounts.service'
import type { IdentityService } from '../identity/identity.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import type { SsoLimits } from './sso.limits'
import type { SsoRepo } from './sso.repo'
import type { SsoSettingsReq, SsoSettingsResp } from './sso.schemas'

/** The configuration sso reads: the public URL (its redirect URI). */
export type SsoConfig = Pick<Config, 'server'>

export interface SsoDeps {
  /**
   * sso's reads and writes are on it, enforcement's included (through a memo); writes are units of
   * work, and the provider is called before or after them, never inside.
   */
  store: Store
  clock: Clock
  random: Random
  log: Logger
  config: SsoConfig
  repo: SsoRepo
  /** Seals client secrets, bound to their workspace. */
  sealer: Sealer
  /** The shared OpenID Connect relying party (src/platform/auth/oidc.ts). */
  rp: OidcRelyingParty
  /** Whether an `http://` issuer off loopback is accepted (`sso.allow_http_issuer`, the operator's choice, for a lab). */
  allowHttpIssuer: boolean
  /** The rate limit of the sign-in's start, per client address. */
  limits: SsoLimits
  accounts: AccountsService
  /** Its audited actions are told as events (`sso.configured`, `sso.member_joined`, ...). */
  events: Outbox
  workspaces: WorkspacesService
  /** Provider identities: a member's (issuer, subject) is linked on first SSO sign-in and found by it after. */
  identity: IdentityService
  /** A member who joins just in time takes one of the plan's `seats`. */
  plans: Pick<PlansService, 'ensureRoom' | 'holdCap'>
}

/** The body of `PUT /v1/enterprise/sso`. */
export type SsoSettingsInput = Static<typeof SsoSettingsReq>

/** The answer of the settings routes. */
export type SsoSettingsView = Static<typeof SsoSettingsResp>
