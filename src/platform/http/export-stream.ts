// Exports as streamed downloads: CSV or JSON Lines written batch by batch as the client reads, so
// the server holds one batch of rows at a time however many rows the export has.
import { attachmentDisposition } from './content-disposition'
import { SECURITY_DEFAULTS } from './security-headers'

/** The formats an export is written in. */
export type ExportFormat = 'csv' | 'jsonl'

/** One row of an export: flat, JSON values. */
export type ExportRow = Record<string, unknown>

// A cell a spreadsheet would run as a formula (CSV injection): its first character is one of these.
const FORMULA = /^[=+\-@\t\r]/

/**
 * One CSV cell (RFC 4180). Text a spreadsheet would read as a formula gets a leading `'`, which
 * makes it text there; objects are written as their JSON; null is empty.
 */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return ''
  let s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)
  if (typeof v !== 'number' && FORMULA.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s
}

/** The lines of a batch in a format; CSV cells in the order of `columns`. */
function encodeBatch(format: ExportFormat, columns: readonly string[], rows: readonly ExportRow[]): string {
  if (format === 'jsonl') return rows.map((r) => `${JSON.stringify(r)}\n`).join('')
  return rows.map((r) => `${columns.map((c) => csvCell(r[c])).join(',')}\r\n`).join('')
}

/**
 * A streamed export: `batches` is read one batch per pull, when the client has taken the previous
 * one (the stream's back-pressure), and closed if the client goes away. It may be synchronous (a
 * bun:sqlite cursor) or asynchronous (a repository on the store).
 */
export function exportResponse(
  format: ExportFormat,
  columns: readonly string[],
  batches: Iterator<readonly ExportRow[]> | AsyncIterator<readonly ExportRow[]>,
  filename: string,
): Response {
  const text = new TextEncoder()
  let header = format === 'csv' ? `${columns.join(',')}\r\n` : ''
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await batches.next()
        if (next.done) {
          if (header) controller.enqueue(text.encode(header))
          controller.close()
          return
        }
        controller.enqueue(text.encode(header + encodeBatch(format, columns, next.value)))
        header = ''
      },
      async cancel() {
        await batches.return?.(undefined)
      },
    },
    { highWaterMark: 1 },
  )
  return new Response(body, {
    headers: {
      ...SECURITY_DEFAULTS,
      'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': attachmentDisposition(`${filename}.${format}`),
      'cache-control': 'no-store',
    },
  })
}
