// The Drive v3 client of one connection: googleapis' per-API package over google-auth-library's
// service-account (JWT) or refresh-token (OAuth2Client) credentials, every request through the
// outbound guard's fetch, and what Google answers turned into SourceError codes.
import type { drive_v3 } from '@googleapis/drive'
import { EgressDenied } from '../../../platform/net/egress'
import { type ConnectorEnv, retryAfterMs, SourceError, type SourceErrorCode } from './connector'

const SCOPE = 'https://www.googleapis.com/auth/drive.readonly'

/**
 * The token endpoint google-auth-library's JWT client posts to: it is fixed in the library (gtoken),
 * unlike OAuth2Client's, so requests to it are sent to the configured `sources.google_token_url`.
 */
const LIBRARY_TOKEN_URL = 'https://oauth2.googleapis.com/token'

/** Credentials as the connection stores them, checked for the chosen auth mode. */
export interface GdriveCredentials {
  auth: 'service_account' | 'oauth'
  clientEmail?: string
  privateKey?: string
  clientId?: string
  clientSecret?: string
  refreshToken?: string
}

/**
 * Builds the Drive API client; nothing is sent until the first call. The libraries are loaded here,
 * by the first Drive source a server syncs (they hold about 50 MB a server without one never needs).
 */
export async function driveClient(c: GdriveCredentials, env: ConnectorEnv): Promise<drive_v3.Drive> {
  const [{ drive }, { JWT, OAuth2Client }] = await Promise.all([
    import('@googleapis/drive'),
    import('google-auth-library'),
  ])
  const timeout = env.config.request_timeout_seconds * 1000
  const tokenUrl = env.config.google_token_url
  const transporterOptions = {
    timeout,
    // Through the guard: it checks every destination and redirect (gaxios would use node-fetch).
    // Token requests carry the private key's assertion or the client secret and refresh token:
    // a redirect of one is refused, never followed.
    fetchImplementation: ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input)
      if (url !== LIBRARY_TOKEN_URL && url !== tokenUrl) return env.fetch(input, init)
      return env.fetch(tokenUrl, { ...init, redirect: 'error' })
    }) as typeof fetch,
  }
  // forceRefreshOnFailure: an access token the API refuses (expired early, revoked) is replaced once
  // and the call retried, even though its expiry says it is still good.
  const auth =
    c.auth === 'service_account'
      ? new JWT({
          email: c.clientEmail,
          key: c.privateKey,
          scopes: [SCOPE],
          forceRefreshOnFailure: true,
          transporterOptions,
        })
      : new OAuth2Client({
          clientId: c.clientId,
          clientSecret: c.clientSecret,
          endpoints: { oauth2TokenUrl: tokenUrl },
          forceRefreshOnFailure: true,
          transporterOptions,
        })
  if (c.auth === 'oauth') auth.setCredentials({ refresh_token: c.refreshToken })
  // The sync retries a busy source with the delay it asked for; a library that sleeps and retries on
  // its own (gtoken asks gaxios to retry the token POST) would hold a worker and hide Retry-After.
  auth.transporter.interceptors.request.add({
    resolved: async (o) => Object.assign(o, { retry: false, retryConfig: { retry: 0 } }),
  })
  // On a 401 the library refreshes and retries once, but the JWT client's token cache (gtoken) hands
  // back the same refused token unless it looks expired: mark it so, and a new one is asked for.
  auth.transporter.interceptors.response.add({
    rejected: async (e) => {
      if (e.response?.status === 401) auth.credentials.expiry_date = 1
      throw e
    },
  })
  return drive({ version: 'v3', auth, rootUrl: env.config.gdrive_api_url, retry: false, timeout })
}

/** The fields of a file every listing asks for. */
export const FILE_FIELDS = 'id,name,mimeType,md5Checksum,version,size,modifiedTime,parents,trashed'

/** Google's reasons for a 403 that means "slow down", not "not allowed". */
const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'dailyLimitExceeded'])

const MESSAGES: Record<SourceErrorCode, string> = {
  unreachable: 'Google Drive could not be reached.',
  bad_credentials: 'Google refused the credentials of this connection.',
  permission_denied: 'The connection is not allowed to read this Drive folder.',
  folder_not_found: 'The Drive folder does not exist or is not shared with this connection.',
  invalid_folder: 'A Drive folder is a folder id or "root".',
  root_not_allowed: 'This folder is not allowed.',
  egress_denied: 'Outbound requests to this Google Drive address are not allowed.',
  rate_limited: 'Google Drive is rate limiting this connection.',
  source_error: 'Google Drive answered with an error.',
  file_too_large: 'The file is larger than the limit.',
  file_not_found: 'The file is no longer in Google Drive.',
  cursor_expired: 'The saved Drive changes token is no longer accepted.',
  no_progress: 'The Drive listing made no progress.',
}

/** A SourceError with this connector's wording for `code`. */
export function driveError(
  code: SourceErrorCode,
  retryAfter: number | null = null,
  detail = '',
): SourceError {
  return new SourceError(code, detail ? `${MESSAGES[code]} ${detail}` : MESSAGES[code], retryAfter)
}

/**
 * What a failed call means for the sync. `notFound` words a 404 (a folder, a file, a changes token).
 * Library messages are never passed on: they can quote request bodies, and so credentials.
 */
export function toSourceError(e: unknown, now: number, notFound: SourceErrorCode): SourceError {
  if (e instanceof SourceError) return e
  for (let c: unknown = e; c instanceof Error; c = c.cause) {
    if (c instanceof EgressDenied) return driveError('egress_denied', null, c.message)
  }
  const res = (e as { response?: { status?: number; headers?: unknown; data?: unknown } }).response
  const status = res?.status
  if (!status) {
    // No answer: a refused connection, a timeout, or a key google-auth-library could not sign with.
    return /key|PEM|asn1|decoder|sign/i.test(String((e as Error)?.message))
      ? driveError('bad_credentials', null, 'The private key could not be read.')
      : driveError('unreachable')
  }
  const body = (res?.data ?? {}) as { error?: string | { errors?: { reason?: string }[] } }
  const wait = retryAfterMs(headerOf(res?.headers, 'retry-after'), now)
  // The token endpoint answers `{error: "invalid_grant"}`; the API `{error: {errors: [{reason}]}}`.
  const tokenRefusal = typeof body.error === 'string' && status < 500 && status !== 429
  const reason = typeof body.error === 'object' ? body.error.errors?.[0]?.reason : undefined
  if (status === 401 || tokenRefusal) return driveError('bad_credentials')
  if (status === 429 || (status === 403 && reason && RATE_REASONS.has(reason)))
    return driveError('rate_limited', wait)
  if (status === 403) return driveError('permission_denied')
  if (status === 404) return driveError(notFound)
  if (status === 400 && notFound === 'cursor_expired') return driveError('cursor_expired')
  return driveError('source_error', status >= 500 ? wait : null, `(HTTP ${status})`)
}

function headerOf(headers: unknown, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name)
  const v = (headers as Record<string, unknown> | undefined)?.[name]
  return typeof v === 'string' ? v : null
}
