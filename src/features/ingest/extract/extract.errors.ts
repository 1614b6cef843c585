/**
 * Per-document extraction failures. These are not HTTP errors: the ingest service records the code
 * and message on the document row (status `failed`) so the user sees why one file was not taken.
 */
export const extractErrorTable = {
  unsupported_type: 'This file type is not supported.',
  corrupt_file: 'The file is damaged or not in the format its name says.',
  empty_document: 'The document contains no text.',
  pdf_encrypted: 'The PDF is password-protected. Remove the password and upload it again.',
  pdf_no_text_layer:
    'The PDF has no text layer (it is a scan or images only). Run it through OCR and upload it again.',
  office_encrypted: 'The Office document is password-protected. Remove the password and upload it again.',
  too_large: 'The document expands to more data than extraction allows.',
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
