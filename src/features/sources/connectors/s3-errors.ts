// What the minio client's failures mean in the connector contract's terms (connector.ts).
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
/** Socket errors (Node's and Bun's names) that mean the server could not be reached or went away. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
])

/**
 * What a failure from the minio client means for the person. Messages name the bucket, never a
 * key or secret; S3's own error code is kept so an operator can look it up.
 */
export function asSourceError(e: unknown, bucket: string): SourceError {
  if (e instanceof SourceError) return e
  const err = e as { code?: string; message?: string }
  const code = String(err?.code ?? '')
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
  if (NETWORK.has(code))
    return new SourceError('unreachable', `The S3 server could not be reached (${code}).`)
  // With retries off, minio reports a 408, 429 or 5xx only through this message, without a code.
  const status = Number(/Retryable HTTP status: (\d{3})/.exec(err?.message ?? '')?.[1] ?? 0)
  if (status === 429) return new SourceError('rate_limited', 'The S3 server asked to slow down (429).')
  if (status === 408) return new SourceError('unreachable', 'The S3 server timed out (408).')
  if (status >= 500) return new SourceError('source_error', `The S3 server failed (${status}).`)
  return new SourceError('source_error', `The S3 server answered with an error${code ? ` (${code})` : ''}.`)
}
