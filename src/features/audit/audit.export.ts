// The audit export's streamed body, read from an async source. exportResponse (platform/http/
// export-stream.ts) pulls its batches synchronously, which a repository on the store cannot give;
// this is the same stream with an awaited pull, until the platform's takes an async source too.
import { attachmentDisposition } from '../../platform/http/content-disposition'
import { csvCell, type ExportFormat, type ExportRow } from '../../platform/http/export-stream'
import { SECURITY_DEFAULTS } from '../../platform/http/security-headers'

/** The lines of a batch in a format; CSV cells in the order of `columns`. */
function encodeBatch(format: ExportFormat, columns: readonly string[], rows: readonly ExportRow[]): string {
  if (format === 'jsonl') return rows.map((r) => `${JSON.stringify(r)}\n`).join('')
  return rows.map((r) => `${columns.map((c) => csvCell(r[c])).join(',')}\r\n`).join('')
}

/**
 * A streamed export as exportResponse writes it: `batches` is read one batch per pull, when the
 * client has taken the previous one, and closed if the client goes away.
 */
export function asyncExportResponse(
  format: ExportFormat,
  columns: readonly string[],
  batches: AsyncIterator<readonly ExportRow[]>,
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
