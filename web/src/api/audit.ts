/**
 * The audit log (admin): pages of entries newest first, the deletion receipts, an export as a file,
 * and the hash chain's check (`/v1/audit`, `/v1/audit/deletions`, `/v1/audit/export`,
 * `/v1/audit/verify`).
 */
import { http, ok, type Page } from './client'
import { attachmentName } from './documents'
import type { AuditEntry, AuditFilters, AuditVerify } from './types'

/** Empty filters are left out: the server reads an empty `since` as a bad time. */
function query(filters: AuditFilters): AuditFilters {
  const out: AuditFilters = {}
  for (const [k, v] of Object.entries(filters) as [keyof AuditFilters, string | undefined][]) {
    const t = v?.trim()
    if (t) out[k] = t
  }
  return out
}

/** One page of the log, newest first; `cursor` from the previous page's `next_cursor`. */
export function listAudit(
  filters: AuditFilters,
  cursor: string | undefined,
  signal?: AbortSignal,
): Promise<Page<AuditEntry>> {
  return ok(http.GET('/v1/audit', { params: { query: { ...query(filters), limit: 50, cursor } }, signal }))
}

/** One page of the deletion receipts (`document.deleted`, `corpus.deleted`), newest first. */
export function listDeletions(
  filters: AuditFilters,
  cursor: string | undefined,
  signal?: AbortSignal,
): Promise<Page<AuditEntry>> {
  return ok(
    http.GET('/v1/audit/deletions', {
      params: { query: { ...query(filters), limit: 50, cursor } },
      signal,
    }),
  )
}

/** An export, read whole, and the name to save it under. */
export interface AuditExport {
  blob: Blob
  filename: string
}

/**
 * Exports the rows the filters keep, oldest first with their hashes. It needs the bearer token, so
 * it cannot be a plain link: it is read as a blob here and saved by the caller (`saveFile`).
 */
export async function exportAudit(filters: AuditFilters, format: 'csv' | 'jsonl'): Promise<AuditExport> {
  const { data, response } = await http.GET('/v1/audit/export', {
    params: { query: { ...query(filters), format } },
    headers: { accept: '*/*' },
    parseAs: 'blob',
  })
  return {
    blob: data as unknown as Blob,
    filename: attachmentName(response.headers.get('content-disposition')) ?? `audit.${format}`,
  }
}

/** Walks the workspace's chain: ok, rows checked, the first broken row. */
export function verifyAudit(signal?: AbortSignal): Promise<AuditVerify> {
  return ok(http.GET('/v1/audit/verify', { signal }))
}
