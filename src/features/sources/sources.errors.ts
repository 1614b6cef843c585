import { type ApiError, type ErrorCode, fail } from '../../platform/errors/errors'
import type { SourceError, SourceErrorCode } from './connectors/connector'

/** The API error code of each thing that can go wrong at a source. */
const CODES: Record<SourceErrorCode, ErrorCode> = {
  unreachable: 'source_unreachable',
  bad_credentials: 'source_credentials_rejected',
  permission_denied: 'source_permission_denied',
  folder_not_found: 'source_folder_not_found',
  invalid_folder: 'invalid_folder',
  root_not_allowed: 'folder_root_not_allowed',
  egress_denied: 'egress_denied',
  rate_limited: 'source_rate_limited',
  source_error: 'source_failed',
  file_too_large: 'payload_too_large',
  file_not_found: 'source_folder_not_found',
  cursor_expired: 'source_failed',
  no_progress: 'source_failed',
}

/** A source's failure as the API answers it, in the words the connector chose; Retry-After when said. */
export function apiErrorOf(e: SourceError): ApiError {
  const seconds = e.retryAfterMs === null ? null : Math.ceil(e.retryAfterMs / 1000)
  const headers = seconds === null ? undefined : { 'retry-after': String(seconds) }
  const details = { source_error: e.code, ...(seconds === null ? {} : { retry_after_seconds: seconds }) }
  return fail(CODES[e.code], e.message, details, headers)
}
