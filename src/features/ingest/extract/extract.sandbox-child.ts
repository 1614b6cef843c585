// The extraction child process. `ExtractSandbox` starts it (the script from a checkout, or the
// executable with EXTRACT_CHILD_COMMAND), sends it one document at a time over the IPC channel
// and watches its memory from outside; this side only extracts and answers. It reads PDFs inline:
// there is no event loop here worth a thread.

import { failureOf } from './extract.pdf-worker-run.ts'
import { EXIT_OVER_BUDGET, type SandboxReply, type SandboxRequest } from './extract.sandbox-protocol.ts'
import { extractText } from './extract.ts'

/** Serves extraction requests on the IPC channel until the parent goes away. */
export function runExtractChild(): void {
  const send = (reply: SandboxReply) => process.send?.(reply)
  process.on('message', async (msg: SandboxRequest) => {
    if (msg?.type !== 'extract') return
    // A second watch beside the parent's: where the parent cannot read this process's memory
    // (no /proc), this one still stops a reader that yields to the event loop while it grows.
    const limit = msg.memoryMb * 1024 * 1024
    const watch = setInterval(() => {
      if (process.memoryUsage.rss() > limit) process.exit(EXIT_OVER_BUDGET)
    }, 50)
    let reply: SandboxReply
    try {
      const { bytes, filename, contentType, memoryMb, options } = msg
      const input = { bytes, filename, memoryMb, ...(contentType === undefined ? {} : { contentType }) }
      reply = { type: 'done', result: await extractText(input, { ...options, pdfThread: false }) }
    } catch (e) {
      reply = { type: 'error', failure: failureOf(e) }
    } finally {
      clearInterval(watch)
    }
    send(reply)
  })
  // The parent is gone (it exited or was killed): nothing will ask for work again.
  process.on('disconnect', () => process.exit(0))
  send({ type: 'ready' })
}

if (import.meta.main) runExtractChild()
