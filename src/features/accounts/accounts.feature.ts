import type { Authenticator } from '../../platform/auth/principal'
import { SessionTokens } from '../../platform/crypto/token'
import type { Mailer } from '../../platform/email/email'
import type { Feature, Platform } from '../../platform/feature/feature'
import { RateLimiter } from '../../platform/rate-limit/rate-limit'
import type { KeysService } from '../keys/keys.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { AccountsRepo } from './accounts.repo'
import { accountsRoutes } from './accounts.routes'
import { type AccountsConfig, AccountsService } from './accounts.service'
import { createAuthenticator, SessionService } from './accounts.sessions'
import { SsoGate } from './accounts.sso'

export interface AccountsFeatureDeps {
  config: AccountsConfig
  /** The token-signing secret. */
  secret: string
  mailer: Mailer
  workspaces: WorkspacesService
  keys: KeysService
}

/**
 * Users, sign-up and sign-in, sessions. Also who is calling: the authenticator every protected
 * route runs takes session tokens here and hands API keys to the keys service.
 */
export function accountsFeature(
  p: Platform,
  d: AccountsFeatureDeps,
): Feature<AccountsService> & { authenticate: Authenticator } {
  const a = d.config.accounts
  const tokens = new SessionTokens(d.secret, {
    normal: a.session_hours * 3600,
    remember: a.remember_days * 86_400,
    cap: a.session_cap_days * 86_400,
  })
  const limiter = new RateLimiter(p.store, p.clock, d.config.security.rate_limits === 'on')
  const sso = new SsoGate()
  const repo = new AccountsRepo(p.store)
  const service = new AccountsService({ ...p, ...d, repo, sessions: tokens, limiter, sso })
  const sessions = new SessionService(p.store, repo, p.clock, tokens, sso, d.workspaces)
  return {
    name: 'accounts',
    service,
    routes: accountsRoutes(service, sessions, d.keys, d.config),
    authenticate: createAuthenticator(sessions, (secret) => d.keys.authenticate(secret)),
  }
}
