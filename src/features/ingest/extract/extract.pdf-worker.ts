// The PDF reader on a thread of its own. pdf.js parses a large file for seconds without giving the
// event loop a turn, which would stall every request the server is answering meanwhile. Started by
// `readPdfInWorker`: posts `ready` once loaded, takes one `read` message with the file's bytes
// (transferred, not copied), answers `done` with exactly what `readPdf` returns, or `error`.
import { readPdf } from './extract.pdf.ts'
import { failureOf, type PdfWorkerMsg, type PdfWorkerRead } from './extract.pdf-worker-run.ts'

declare const self: Worker

self.onmessage = async (e: MessageEvent) => {
  const msg = e.data as PdfWorkerRead
  let reply: PdfWorkerMsg
  try {
    reply = { type: 'done', result: await readPdf(msg.bytes) }
  } catch (err) {
    reply = { type: 'error', failure: failureOf(err) }
  }
  self.postMessage(reply)
}

self.postMessage({ type: 'ready' } satisfies PdfWorkerMsg)
