import { type ErrorCode, errorTable } from './error-table'

// The table lives in its own module; every feature reads codes from here.
export { type ErrorCode, errorTable } from './error-table'

/** One validation problem, in the FastAPI-compatible shape frozen clients know. */
export interface ValidationIssue {
  loc: (string | number)[]
  msg: string
  type: string
}

/** The error every layer throws; the HTTP layer renders it in the shape of the mount. */
export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? errorTable[code].message)
    this.name = 'ApiError'
    this.status = errorTable[code].status
  }
}

/** Builds an ApiError from the table: `throw fail('not_found')`. */
export function fail(
  code: ErrorCode,
  message?: string,
  details?: unknown,
  headers?: Record<string, string>,
): ApiError {
  return new ApiError(code, message, details, headers)
}

/** A 422 with field-level issues. */
export function validationFailed(issues: ValidationIssue[]): ApiError {
  return new ApiError('validation_error', errorTable.validation_error.message, issues)
}

/** 404 in the words the spec uses; another tenant's resource answers the same. */
export function notFound(what = 'Resource'): ApiError {
  return new ApiError('not_found', `${what} not found.`)
}
