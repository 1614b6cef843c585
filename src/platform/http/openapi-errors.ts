// The error side of the OpenAPI document: which errors each route can answer, by status, in the
// shape of its mount, and a named body for each error code that carries details.
import type { TSchema } from '@sinclair/typebox'
import { type ErrorCode, errorTable } from '../errors/errors'
import { Components, ref } from './openapi-components'
import { type ApiStyle, idempotencyOf, type RouteDef } from './route'

/** The error codes a route can answer, from its auth, inputs, body and declared `errors`. */
function errorCodes(route: RouteDef, style: ApiStyle): ErrorCode[] {
  const codes = new Set<ErrorCode>()
  const bodyKind = route.bodyKind ?? 'json'
  if (route.body && bodyKind !== 'stream') {
    if (bodyKind === 'json') codes.add('malformed_json')
    codes.add('payload_too_large')
    codes.add('unsupported_media_type')
  }
  const idempotency = idempotencyOf(route)
  if (idempotency !== 'off') {
    codes.add('bad_request')
    codes.add('idempotency_in_progress')
    codes.add('idempotency_mismatch')
  }
  if (idempotency === 'once') codes.add('idempotency_key_reused')
  if (route.auth !== 'none') {
    codes.add('unauthorized')
    codes.add('account_disabled')
    codes.add('workspace_suspended')
    // The workspace's IP allowlist is checked on every request with a credential (mount.ts).
    codes.add('ip_not_allowed')
    if (route.scope) codes.add('missing_scope')
    if (route.auth === 'admin') codes.add('admin_required')
    // A key bound to some bases is refused by a route acting on the whole workspace (mount.ts).
    const keyed = !route.errors?.includes('session_required')
    if (keyed && !route.path.includes(':corpus_id') && route.boundKeys !== 'served') {
      codes.add('key_bound_to_bases')
    }
  }
  if (route.path.includes(':')) codes.add('not_found')
  // Every route validates its query (unknown parameters are refused), so every route can 422.
  codes.add('validation_error')
  if (route.list && style === 'v1') codes.add('invalid_cursor')
  for (const code of route.errors ?? []) codes.add(code)
  return [...codes]
}

/** One response per error status the route can give, in the error shape of the mount. */
export function failures(route: RouteDef, style: ApiStyle): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of errorCodes(route, style)) {
    const status: number = errorTable[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const out: Record<string, unknown> = {}
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const response: Record<string, unknown> = {
      description: codes.map((c) => `\`${c}\`: ${errorTable[c].message}`).join('\n\n'),
      content: { 'application/json': { schema: errorBody(codes, style) } },
    }
    if (codes.some((c) => 'retryAfter' in errorTable[c])) {
      response.headers = {
        'Retry-After': {
          description: 'Seconds to wait before trying again.',
          required: true,
          schema: { type: 'integer', minimum: 0 },
        },
      }
    }
    out[String(status)] = response
  }
  out.default = {
    description: 'Any other error (`internal_error` and the rest of the error table).',
    content: { 'application/json': { schema: ref(style === 'v1' ? 'ErrorEnvelope' : 'Detail') } },
  }
  return out
}

function errorBody(codes: ErrorCode[], style: ApiStyle): unknown {
  if (style === 'frozen') {
    const validation = codes.includes('validation_error')
    if (validation && codes.length === 1) return ref('HTTPValidationError')
    return validation ? { anyOf: [ref('HTTPValidationError'), ref('Detail')] } : ref('Detail')
  }
  const only = codes.length === 1 ? codes[0]! : null
  if (only && 'details' in errorTable[only]) return ref(codeErrorName(only))
  return ref('ErrorEnvelope')
}

const codeErrorName = (code: string) =>
  `${code.replace(/(^|_)([a-z])/g, (_, _s: string, c: string) => c.toUpperCase())}Error`

/**
 * For each error code whose table row gives a `details` schema: its `/v1` body, the envelope with
 * that code and those details (`ServingUnavailableError` carries `ServingUnavailableDetail`).
 */
export function codeErrorSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const named = new Components({})
  for (const [code, row] of Object.entries(errorTable)) {
    if (!('details' in row)) continue
    out[codeErrorName(code)] = {
      allOf: [
        ref('ErrorEnvelope'),
        {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              required: ['details'],
              properties: { code: { const: code }, details: named.use(row.details as TSchema) },
            },
          },
        },
      ],
    }
  }
  return { ...named.schemas, ...out }
}
