import { defineRoute, type RouteDef } from '../../platform/http/route'
import { ApiKeyCreatedResp, ApiKeyCreateReq, ApiKeyResp, KeyIdParams } from './keys.schemas'
import type { KeysService } from './keys.service'

/** `/api-keys` (spec, API keys). Minting, listing and revoking all need the `admin` scope. */
export function keysRoutes(keys: KeysService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api-keys',
      // The secret is shown once and only its SHA-256 is kept: storing the answer for an
      // Idempotency-Key replay would keep the secret in the clear, so a key runs it once and a
      // reuse is refused (409 `idempotency_key_reused`) rather than minting a second key.
      idempotent: 'once',
      auth: 'admin',
      scope: 'admin',
      summary: 'Create an API key (the secret is shown once)',
      tags: ['api-keys'],
      errors: ['plan_limit_reached'],
      body: ApiKeyCreateReq,
      response: ApiKeyCreatedResp,
      handler: ({ principal, body, ip, requestId }) => keys.create(principal, body, { ip, requestId }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api-keys',
      auth: 'admin',
      scope: 'admin',
      summary: 'List API keys, newest first, revoked included',
      tags: ['api-keys'],
      list: true,
      response: ApiKeyResp,
      handler: ({ principal, page }) => keys.list(principal.workspaceId, page),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api-keys/:key_id',
      auth: 'admin',
      scope: 'admin',
      summary: 'Revoke an API key (idempotent; the key stays listed)',
      tags: ['api-keys'],
      params: KeyIdParams,
      response: ApiKeyResp,
      handler: ({ principal, params, ip, requestId }) =>
        keys.revoke(principal, params.key_id, { ip, requestId }),
    }),
  ]
}
