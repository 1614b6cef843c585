// What the identity feature is built from. Kept apart from the service so the parts it is made of
// (the Google flow, link tickets) can name them without importing the service back.
import type { OidcRelyingParty } from '../../platform/auth/oidc'
import type { Clock } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import type { Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import type { AccountsService } from '../accounts/accounts.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import type { IdentityRepo } from './identity.repo'

/** The configuration identity reads: Google's section, sign-up rules and the public URL. */
export type IdentityConfig = Pick<Config, 'google' | 'accounts' | 'server'>

/**
 * Whether a workspace enforces single sign-on (the sso feature answers; until it plugs in, none
 * does). A workspace that does refuses Google sign-in and linking.
 */
export interface SsoEnforcement {
  enforces(workspaceId: string): Promise<boolean>
}

/** What the identity feature's parts are built from. */
export interface IdentityDeps {
  /**
   * Links are units of work on it. Accounts is not on the store yet: its synchronous writes made
   * inside a unit (a new workspace and its admin) join it on SQLite, where both share the connection.
   */
  store: Store
  clock: Clock
  random: Random
  log: Logger
  config: IdentityConfig
  /** The instance secret: flow cookies and link tickets are sealed or signed under keys derived from it. */
  secret: string
  accounts: AccountsService
  workspaces: WorkspacesService
  /** `identity.linked` is told as an event. */
  events: Outbox
  repo: IdentityRepo
  rp: OidcRelyingParty
  sso: SsoEnforcement
}

/** Where the browser goes after a provider step, and the flow cookie to set or clear. */
export interface Landing {
  location: string
  cookie: string
}
