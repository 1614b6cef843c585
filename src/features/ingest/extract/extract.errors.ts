/**
 * Per-document extraction failures. These are not HTTP errors: the ingest service records the code
 * and message on the document row (status `failed`) so the user sees why one file was not taken.
 * Messages are written for the person who uploaded the file: a format library's own words (parser
 * internals, stack-ish text) stay in the error's `cause`, for the logs.
 */
export const extractErrorTable = {
  unsupported_type: 'This file type is not supported.',
  corrupt_file: 'The file is damaged or not in the format its name says.',
  empty_document: 'The document contains no text.',
  pdf_encrypted: 'The PDF is password-protected. Remove the password and upload it again.',
  pdf_no_text_layer:
    'The PDF has no text layer (it is a scan or images only). Run it through OCR and upload it again.',
  office_encrypted: 'The Office document is password-protected. Remove the password and upload it again.',
  over_memory_budget: 'Reading the file needs more memory than text extraction is allowed.',
  too_slow: 'Reading the file takes longer than text extraction is allowed.',
  too_deeply_nested:
    'The file is nested too deeply to be read (elements or values inside each other thousands of levels deep).',
} as const

/** A machine-readable extraction failure code. */
export type ExtractErrorCode = keyof typeof extractErrorTable

/** Thrown by `extractText` when one document cannot be read; carries a code and a human message. */
export class ExtractError extends Error {
  constructor(
    readonly code: ExtractErrorCode,
    message?: string,
    override readonly cause?: unknown,
  ) {
    super(message ?? extractErrorTable[code])
    this.name = 'ExtractError'
  }
}

/** True when `e` is an extraction failure rather than a bug. */
export function isExtractError(e: unknown): e is ExtractError {
  return e instanceof ExtractError
}

/** The message for a file that expands past the budget, naming the limit and the setting. */
export function overBudgetMessage(budgetMb: number, expandedMb?: number): string {
  const what =
    expandedMb === undefined
      ? `Reading this file needs more than ${budgetMb} MB of memory`
      : `The file expands to ${expandedMb} MB when unpacked, more than the ${budgetMb} MB`
  return `${what} that text extraction may use for one file (setting ingest.extract_memory_mb). Split the file into smaller ones, or ask the operator to raise the limit.`
}

/** The message for a file whose extraction ran out of time, naming the limit and the setting. */
export function tooSlowMessage(seconds: number): string {
  return `Reading this file took longer than ${seconds} s, the most text extraction may take for one file (setting ingest.extract_timeout_seconds). Split the file into smaller ones, or ask the operator to raise the limit.`
}

/** True for the engine's stack overflow (a value or element nested too deeply for a recursive reader). */
export function isStackOverflow(e: unknown): boolean {
  // A failure that crossed a thread or process keeps its name, not its class.
  const err = e as { name?: unknown; message?: unknown } | null
  return err?.name === 'RangeError' && typeof err.message === 'string' && /call stack/i.test(err.message)
}

/**
 * The error for a failure inside a format library, worded for a person: "`what` cannot be read"
 * plus what to do. The library's own message (parser internals, positions) stays in `cause`.
 */
export function unreadable(what: string, cause: unknown): ExtractError {
  if (isExtractError(cause)) return cause
  if (isStackOverflow(cause)) return new ExtractError('too_deeply_nested', undefined, cause)
  return new ExtractError(
    'corrupt_file',
    `${what} cannot be read: it is damaged or not in the format its name says. Open it in the program that made it, save it again and upload the new copy.`,
    cause,
  )
}
