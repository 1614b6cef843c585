import { databaseAway } from '../db/database-away'
import { ApiError, errorTable, type ValidationIssue } from '../errors/errors'
import type { ApiStyle } from './route'
import { SECURITY_DEFAULTS } from './security-headers'

const JSON_TYPE = 'application/json'

// Built once and copied into each response: a copy of a `Headers` costs about a third of building
// one from an object of eight entries.
const JSON_HEADERS = new Headers({ 'content-type': JSON_TYPE, ...SECURITY_DEFAULTS })
const EMPTY_HEADERS = new Headers(SECURITY_DEFAULTS)

/** A JSON response, with the security headers every answer carries (one object, set once). */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): Response {
  const payload = status === 204 || body === undefined ? null : JSON.stringify(body)
  if (!headers || isEmpty(headers)) {
    return new Response(payload, { status, headers: body === undefined ? EMPTY_HEADERS : JSON_HEADERS })
  }
  return new Response(payload, {
    status,
    headers:
      body === undefined
        ? { ...SECURITY_DEFAULTS, ...headers }
        : { 'content-type': JSON_TYPE, ...SECURITY_DEFAULTS, ...headers },
  })
}

function isEmpty(o: Record<string, string>): boolean {
  for (const _ in o) return false
  return true
}

/** The API style of a path: `/v1` and below use the envelope, everything else the frozen shape. */
export function styleOf(pathname: string): ApiStyle {
  return pathname === '/v1' || pathname.startsWith('/v1/') ? 'v1' : 'frozen'
}

/** The database unreachable: 503, retried after a moment (database-away.ts). */
const AWAY = () =>
  new ApiError('service_unavailable', 'The database cannot be reached; retry shortly.', undefined, {
    'retry-after': '2',
  })

/**
 * Renders any thrown value as the error body of the style: `/v1` gets
 * `{error: {code, message, status, details, request_id}}`; frozen routes get `{detail}` and, for
 * 422 validation failures, the FastAPI `HTTPValidationError` body `{detail: [{loc, msg, type}]}`.
 * Unknown errors become a 500 whose message reveals nothing internal; the database unreachable, a 503.
 */
export function errorResponse(err: unknown, style: ApiStyle, requestId: string): Response {
  const e = err instanceof ApiError ? err : databaseAway(err) ? AWAY() : new ApiError('internal_error')
  const headers = e.headers
  if (style === 'v1') {
    const error: Record<string, unknown> = { code: e.code, message: e.message, status: e.status }
    if (e.details !== undefined) error.details = e.details
    error.request_id = requestId
    return jsonResponse(e.status, { error }, headers)
  }
  if (e.code === 'validation_error' && Array.isArray(e.details)) {
    return jsonResponse(e.status, { detail: e.details as ValidationIssue[] }, headers)
  }
  return jsonResponse(e.status, { detail: e.message }, headers)
}

/** The OpenAPI schemas of both error shapes, for the generated document. */
export const errorSchemas = {
  ErrorEnvelope: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'status', 'request_id'],
        properties: {
          code: { type: 'string', enum: Object.keys(errorTable) },
          message: { type: 'string' },
          status: { type: 'integer' },
          details: {},
          request_id: { type: 'string' },
        },
      },
    },
  },
  HTTPValidationError: {
    type: 'object',
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
            msg: { type: 'string' },
            type: { type: 'string' },
          },
        },
      },
    },
  },
  Detail: { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } },
}
