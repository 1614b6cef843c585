// What the accounts feature is built from and who is asking it. Kept apart from accounts.service.ts
// so the parts that service is made of (sign-up, sign-in, passwords, profile) can name them without
// importing the service back.
import type { Static } from '@sinclair/typebox'
import type { Clock } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import type { Random } from '../../platform/crypto/random'
import type { SessionTokens } from '../../platform/crypto/token'
import type { Store } from '../../platform/db/store'
import type { Mailer } from '../../platform/email/email'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import type { RateLimiter } from '../../platform/rate-limit/rate-limit'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import type { AccountsRepo } from './accounts.repo'
import type { LinkDelivery as LinkDeliverySchema, LinkResp, TokenResp } from './accounts.schemas'
import type { SsoGate } from './accounts.sso'

/** What the accounts feature is built from. */
/** The configuration accounts read: its own section, and the server, security, billing and email settings it tells of. */
export type AccountsConfig = Pick<Config, 'accounts' | 'server' | 'security' | 'billing' | 'email' | 'google'>

export interface AccountsDeps {
  /** Accounts' changes are units of work on it (password hashing and mail before or after, never inside). */
  store: Store
  /** Accounts' own SQL (users, emailed tokens, access requests). */
  repo: AccountsRepo
  clock: Clock
  random: Random
  config: AccountsConfig
  mailer: Mailer
  limiter: RateLimiter
  sessions: SessionTokens
  workspaces: WorkspacesService
  /** Audited actions are told as events (`auth.sign_in`, `auth.sign_in_failed`, ...). */
  events: Outbox
  log: Logger
  /** Single sign-on's enforcement and recovery codes (the sso feature plugs its policy in). */
  sso: SsoGate
}

/** Where a request came from (the client address a trusted proxy reports, else the socket peer), for rate limits and the audit trail. */
export interface Caller {
  ip: string
  requestId: string
}

/** Where a verification or reset link went (`link_delivery` in responses). */
export type LinkDelivery = Static<typeof LinkDeliverySchema>

/** The answer of a sign-up or a sign-in (TokenResp). */
export type Token = Static<typeof TokenResp>

/** The answer of the routes that send or spend an emailed link (LinkResp). */
export type Link = Static<typeof LinkResp>
