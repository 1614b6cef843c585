import { issuerAllowed, type OidcClientSettings, type ProviderCheck } from '../../platform/auth/oidc'
import type { Actor } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import { baseUrl } from '../../platform/config/config.load'
import { newId } from '../../platform/crypto/random'
import { SealBroken } from '../../platform/crypto/sealed'
import { isUniqueViolation } from '../../platform/db/failures'
import { fail, notFound, validationFailed } from '../../platform/errors/errors'
import { checkedDomains } from './sso.domains'
import { newRecoveryCode, RECOVERY_CODE_COUNT, recoveryCodeHash } from './sso.recovery'
import type { SsoConfigRow } from './sso.repo'
import type { SsoDeps, SsoSettingsInput, SsoSettingsView } from './sso.types'

/** The path the provider sends the browser back to (registered at the provider as the redirect URI). */
export const CALLBACK_PATH = '/auth/sso/callback'

/**
 * An admin's SSO set-up: read, replace, delete, provider check and new recovery codes. Every change
 * is checked whole before anything is written, and lands with its audit event in one unit of work.
 */
export class SsoSettings {
  constructor(private readonly d: SsoDeps) {}

  /** The redirect URI of this server (ENGRAM_BASE_URL + the callback path). */
  redirectUri(): string {
    return `${baseUrl(this.d.config)}${CALLBACK_PATH}`
  }

  /**
   * `GET /v1/enterprise/sso`: the set-up without its secret; `{configured: false, redirect_uri}`
   * when none, since registering the application at the provider comes before saving the set-up.
   */
  async get(workspaceId: string): Promise<SsoSettingsView> {
    const row = await this.d.repo.config(workspaceId)
    return row ? this.view(row) : { configured: false, redirect_uri: this.redirectUri() }
  }

  /**
   * `PUT /v1/enterprise/sso`: replaces the set-up. Turning enforcement on (or creating it enforced)
   * ends the workspace's password sessions and answers fresh recovery codes, this once; turning it
   * off drops the unused ones.
   */
  async put(workspaceId: string, body: SsoSettingsInput, actor: Actor): Promise<SsoSettingsView> {
    const before = await this.d.repo.config(workspaceId)
    const input = await this.checked(workspaceId, body, before)
    const now = this.d.clock.now().getTime()
    const row: SsoConfigRow = {
      workspaceId,
      issuer: input.issuer,
      clientId: body.client_id.trim(),
      clientSecret:
        body.client_secret === undefined ? before!.clientSecret : this.seal(workspaceId, body.client_secret),
      enforce: body.enforce ?? false,
      defaultRole: body.default_role ?? 'member',
      seatCap: body.seat_cap ?? null,
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    }
    const turnedOn = row.enforce && !before?.enforce
    const codes = turnedOn ? this.newCodes() : []
    try {
      await this.d.store.unit(async () => {
        await this.d.repo.saveConfig(row)
        await this.d.workspaces.bumpSecurityRev(workspaceId)
        await this.d.repo.replaceDomains(workspaceId, input.domains, now)
        if (turnedOn) {
          await this.storeCodes(workspaceId, codes, now)
          await this.d.repo.setCutoff(workspaceId, now)
        } else if (!row.enforce) await this.d.repo.replaceRecoveryCodes(workspaceId, [])
        await this.d.events.publish({
          type: 'sso.configured',
          workspaceId,
          payload: {
            actor,
            target: { type: 'workspace', id: workspaceId },
            details: {
              issuer: row.issuer,
              client_id: row.clientId,
              client_secret_changed: body.client_secret !== undefined,
              domains: input.domains,
              enforce: row.enforce,
              default_role: row.defaultRole,
              seat_cap: row.seatCap,
              ...(turnedOn ? { recovery_codes_issued: codes.length } : {}),
            },
          },
        })
      })
    } catch (e) {
      // Another workspace claimed one of the domains between the check and the write (the unit rolled back).
      if (isUniqueViolation(e)) throw fail('sso_domain_taken')
      throw e
    }
    if (before) this.d.rp.forget({ issuer: before.issuer, clientId: before.clientId })
    const view = await this.view(row)
    return turnedOn ? { ...view, recovery_codes: codes } : view
  }

  /** `DELETE /v1/enterprise/sso`: password sign-in works again; ended sessions stay ended. */
  async delete(workspaceId: string, actor: Actor): Promise<void> {
    const before = await this.d.repo.config(workspaceId)
    if (!before) throw notFound('SSO set-up')
    await this.d.store.unit(async () => {
      await this.d.repo.deleteConfig(workspaceId)
      await this.d.workspaces.bumpSecurityRev(workspaceId)
      await this.d.events.publish({
        type: 'sso.deleted',
        workspaceId,
        payload: {
          actor,
          target: { type: 'workspace', id: workspaceId },
          details: { issuer: before.issuer, client_id: before.clientId },
        },
      })
    })
    this.d.rp.forget({ issuer: before.issuer, clientId: before.clientId })
  }

  /** `POST /v1/enterprise/sso/recovery-codes`: new codes replace every earlier one (used or not). */
  async newRecoveryCodes(workspaceId: string, actor: Actor): Promise<string[]> {
    const row = await this.d.repo.config(workspaceId)
    if (!row) throw notFound('SSO set-up')
    if (!row.enforce) throw fail('sso_not_enforced')
    const codes = this.newCodes()
    await this.d.store.unit(async () => {
      await this.storeCodes(workspaceId, codes, this.d.clock.now().getTime())
      await this.d.events.publish({
        type: 'sso.recovery_codes_issued',
        workspaceId,
        payload: {
          actor,
          target: { type: 'workspace', id: workspaceId },
          details: { count: codes.length },
        },
      })
    })
    return codes
  }

  /** `POST /v1/enterprise/sso/test`: discovery, the key set and the token endpoint, each said. */
  async test(workspaceId: string): Promise<{ ok: boolean; checks: ProviderCheck[] }> {
    const row = await this.d.repo.config(workspaceId)
    if (!row) throw notFound('SSO set-up')
    let client: OidcClientSettings
    try {
      client = this.client(row)
    } catch (e) {
      if (!(e instanceof SealBroken)) throw e
      const detail = 'The stored client secret cannot be read (the instance secret changed?). Set it again.'
      return { ok: false, checks: [{ name: 'token_endpoint', ok: false, detail }] }
    }
    const checks = await this.d.rp.check(client, this.redirectUri())
    return { ok: checks.every((c) => c.ok), checks }
  }

  /** The relying party's settings of a workspace's set-up (the secret unsealed; never returned or logged). */
  client(row: SsoConfigRow): OidcClientSettings {
    return {
      issuer: row.issuer,
      clientId: row.clientId,
      clientSecret: this.d.sealer.open(row.clientSecret, context(row.workspaceId)),
      allowHttpIssuer: this.d.allowHttpIssuer,
    }
  }

  /** Validates a PUT against the rules the schema cannot say; throws 422 or 409 before any write. */
  private async checked(workspaceId: string, body: SsoSettingsInput, before: SsoConfigRow | undefined) {
    const issuer = body.issuer.trim().replace(/\/+$/, '')
    if (!issuerAllowed(issuer, this.d.allowHttpIssuer)) {
      throw invalid(
        'issuer',
        'The issuer must be an https:// URL (http:// only on a loopback address, or when the operator allows it).',
      )
    }
    if (body.client_secret === undefined && !before) {
      throw invalid('client_secret', 'A client secret is required when SSO is first set up.', 'missing')
    }
    const domains = checkedDomains(body.domains)
    const cap = body.seat_cap ?? null
    if (cap !== null) {
      const active = (await this.d.accounts.workspaceUsers(workspaceId)).filter(
        (u) => u.status === 'active',
      ).length
      if (cap < active) {
        throw invalid(
          'seat_cap',
          `The seat cap must be at least the ${active} active members the workspace has.`,
        )
      }
    }
    const taken = await this.d.repo.claimedElsewhere(workspaceId, domains)
    if (taken.length > 0) {
      throw fail('sso_domain_taken', undefined, { domains: taken })
    }
    return { issuer, domains }
  }

  private async view(row: SsoConfigRow): Promise<SsoSettingsView> {
    return {
      configured: true,
      issuer: row.issuer,
      client_id: row.clientId,
      client_secret_set: true,
      domains: await this.d.repo.domains(row.workspaceId),
      enforce: row.enforce,
      default_role: row.defaultRole,
      seat_cap: row.seatCap,
      redirect_uri: this.redirectUri(),
      recovery_codes_left: await this.d.repo.recoveryCodesLeft(row.workspaceId),
      updated_at: iso(new Date(row.updatedAt)),
    }
  }

  private seal(workspaceId: string, secret: string): string {
    return this.d.sealer.seal(secret, context(workspaceId))
  }

  private newCodes(): string[] {
    return Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(this.d.random))
  }

  private storeCodes(workspaceId: string, codes: string[], at: number): Promise<void> {
    return this.d.repo.replaceRecoveryCodes(
      workspaceId,
      codes.map((c) => ({
        id: newId(this.d.random, 'rc'),
        workspaceId,
        codeHash: recoveryCodeHash(c),
        createdAt: at,
        usedAt: null,
        usedBy: null,
      })),
    )
  }
}

/** The sealing context of a workspace's client secret: a value copied to another workspace's row does not open. */
function context(workspaceId: string): string {
  return `sso-client-secret:${workspaceId}`
}

function invalid(field: string, msg: string, type = 'value_error') {
  return validationFailed([{ loc: ['body', field], msg, type }])
}
