// The sso feature's face: routes and the app call this class only. The work is done by the parts
// named for it: sso.settings.ts (an admin's set-up and recovery codes), sso.policy.ts (what
// accounts asks at sign-in and on every request), sso.signin.ts (the start and the callback).

import type { OidcFlowState } from '../../platform/auth/oidc-flow'
import type { Actor } from '../../platform/auth/principal'
import type { Caller } from '../accounts/accounts.service'
import { SsoEnforcement } from './sso.policy'
import { SsoSettings } from './sso.settings'
import { type SsoLanding, SsoSignIn, type SsoStart } from './sso.signin'
import type { SsoDeps, SsoSettingsInput, SsoSettingsView } from './sso.types'

export type { SsoLanding, SsoStart } from './sso.signin'

/** Per-workspace OpenID Connect single sign-on: set-up, enforcement, break-glass codes and sign-in. */
export class SsoService {
  private readonly settings: SsoSettings
  private readonly signIns: SsoSignIn
  /** The rules accounts applies at password sign-in and on every session (plugged in by the factory). */
  readonly policy: SsoEnforcement

  constructor(d: SsoDeps, flow: OidcFlowState) {
    this.settings = new SsoSettings(d)
    this.signIns = new SsoSignIn(d, this.settings, flow)
    this.policy = new SsoEnforcement(d)
  }

  /** `GET /v1/enterprise/sso`. */
  get(workspaceId: string): Promise<SsoSettingsView> {
    return this.settings.get(workspaceId)
  }

  /** `PUT /v1/enterprise/sso`; answers recovery codes once when enforcement is turned on. */
  put(workspaceId: string, body: SsoSettingsInput, actor: Actor): Promise<SsoSettingsView> {
    return this.settings.put(workspaceId, body, actor)
  }

  /** `DELETE /v1/enterprise/sso`. */
  delete(workspaceId: string, actor: Actor): Promise<void> {
    return this.settings.delete(workspaceId, actor)
  }

  /** `POST /v1/enterprise/sso/test`. */
  test(workspaceId: string) {
    return this.settings.test(workspaceId)
  }

  /** `POST /v1/enterprise/sso/recovery-codes`: new codes, shown once; earlier ones stop working. */
  newRecoveryCodes(workspaceId: string, actor: Actor): Promise<string[]> {
    return this.settings.newRecoveryCodes(workspaceId, actor)
  }

  /** `POST /auth/sso/start`. */
  start(email: string, caller: Caller): Promise<SsoStart> {
    return this.signIns.start(email, caller)
  }

  /** `GET /auth/sso/callback`. */
  callback(request: Request, params: URLSearchParams, caller: Caller): Promise<SsoLanding> {
    return this.signIns.callback(request, params, caller)
  }
}
