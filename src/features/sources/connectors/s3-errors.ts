// What the minio client's failures mean in the connector contract's terms (connector.ts).
import { EgressDenied } from '../../../platform/net/egress'
import { SourceError } from './connector'

/** Error codes S3 servers answer for keys or signatures that are not accepted. */
const BAD_CREDENTIALS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'InvalidClientTokenId',
])
const DENIED = new Set(['AccessDenied', 'AllAccessDisabled', 'AccountProblem'])
const THROTTLED = new Set([
  'SlowDown',
  'TooManyRequests',
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
])
const UNAVAILABLE = new Set(['ServiceUnavailable', 'InternalError', 'RequestTimeout'])

/**
 * Everything that is not an S3 server's own answer: a refused or reset connection, a timeout, a
 * peer that speaks another protocol, an HTTP server without S3's error codes, a 5xx. One message
 * for all of them, without the errno or the status: the differences would tell a caller what
 * listens on a port (a closed one, an SSH daemon, a web server), and a tenant could map a network.
 */
const UNREACHABLE = 'The S3 endpoint could not be reached, or did not answer as an S3 server.'

/**
 * What a failure from the minio client means for the person. Messages name the bucket, never a
 * key or secret; S3's own error code is kept so an operator can look it up.
 */
export function asSourceError(e: unknown, bucket: string): SourceError {
  if (e instanceof SourceError) return e
  // The guard refused the address at connect time (clientFor's lookup): a name that resolved
  // somewhere not allowed, perhaps only now.
  if (e instanceof EgressDenied) {
    return new SourceError(e.reason === 'unresolvable' ? 'unreachable' : 'egress_denied', e.message)
  }
  const err = e as { name?: string; code?: string; message?: string }
  // With retries off, minio reports a 429 only through this message, without a code.
  if (/Retryable HTTP status: 429\b/.test(err?.message ?? '')) {
    return new SourceError('rate_limited', 'The S3 server asked to slow down (429).')
  }
  // Only minio's S3Error carries an S3 error code; other codes are errnos and parser errors.
  const code = err?.name === 'S3Error' ? String(err.code ?? '') : ''
  if (!code) return new SourceError('unreachable', UNREACHABLE)
  if (BAD_CREDENTIALS.has(code))
    return new SourceError('bad_credentials', `The S3 server refused the keys (${code}).`)
  // SigV4 signs the region into the credential scope: a wrong region is refused like a wrong key.
  if (code === 'AuthorizationHeaderMalformed') {
    return new SourceError(
      'bad_credentials',
      `The S3 server refused the signature; check the region (${code}).`,
    )
  }
  if (DENIED.has(code))
    return new SourceError('permission_denied', `The keys may not read the bucket ${bucket} (${code}).`)
  if (code === 'NoSuchBucket')
    return new SourceError('folder_not_found', `The bucket ${bucket} does not exist.`)
  if (code === 'NoSuchKey' || code === 'NotFound')
    return new SourceError('file_not_found', 'The object is gone.')
  if (THROTTLED.has(code))
    return new SourceError('rate_limited', `The S3 server asked to slow down (${code}).`)
  if (UNAVAILABLE.has(code)) return new SourceError('source_error', `The S3 server failed (${code}).`)
  return new SourceError('source_error', `The S3 server answered with an error (${code}).`)
}
