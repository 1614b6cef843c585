// How the SharePoint connector words what went wrong on the wire: a refused destination, a network
// failure or a status from Microsoft Graph or the login service, as SourceError codes. Messages name
// the service, never a URL (download URLs carry a signature) nor a credential.
import { EgressDenied } from '../../../platform/net/egress'
import { type ConnectorEnv, retryAfterMs, SourceError } from './connector'

/** A signal that aborts a request after `sources.request_timeout_seconds`. */
export function timeoutSignal(env: ConnectorEnv): AbortSignal {
  return AbortSignal.timeout(env.config.request_timeout_seconds * 1000)
}

/** A failure before any status arrived: the guard refused the host, or the network or the timeout failed. */
export function transportError(e: unknown, service: string): SourceError {
  if (e instanceof SourceError) return e
  if (e instanceof EgressDenied) return new SourceError('egress_denied', e.message)
  const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
  return new SourceError(
    'unreachable',
    timedOut ? `${service} did not answer in time.` : `${service} could not be reached.`,
  )
}

/**
 * The error for a status that is not a success. 404 and 410 mean different things depending on what
 * was asked (a folder, a file, a delta link), so the caller says which code they stand for.
 */
export function statusError(
  res: Response,
  service: string,
  env: ConnectorEnv,
  notFound: SourceError = new SourceError('source_error', `${service} answered 404.`),
): SourceError {
  const wait = retryAfterMs(res.headers.get('retry-after'), env.clock.now().getTime())
  if (res.status === 401) return new SourceError('bad_credentials', `${service} refused the credentials.`)
  if (res.status === 403) {
    return new SourceError('permission_denied', `${service} refused access: the app lacks a permission.`)
  }
  if (res.status === 404) return notFound
  if (res.status === 410)
    return new SourceError('cursor_expired', `${service} no longer accepts the saved delta link.`)
  if (res.status === 429)
    return new SourceError('rate_limited', `${service} is rate limiting requests.`, wait)
  if (res.status >= 500) return new SourceError('source_error', `${service} failed (${res.status}).`, wait)
  return new SourceError('source_error', `${service} answered ${res.status}.`)
}
