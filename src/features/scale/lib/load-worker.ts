// The scale test's load generator over real HTTP, on a thread of its own (as a client on another
// machine would be), so serving and loading do not share one core. Started by `runInWorker`:
// receives one `start` message, posts `event` messages as the runner yields them, then `end`;
// an `abort` message stops it at once.
import { streamProbe } from './probe'
import { realTimer, runScaleTest, type Strategy } from './runner'
import type { WorkerStart } from './worker-run'

declare const self: Worker

const controller = new AbortController()

self.onmessage = async (e: MessageEvent) => {
  const msg = e.data as WorkerStart | { type: 'abort' }
  if (msg.type === 'abort') {
    controller.abort()
    return
  }
  const send = (strategy: Strategy, question: string, signal: AbortSignal) =>
    streamProbe(
      () =>
        fetch(msg.url, {
          method: 'POST',
          headers: { ...msg.headers, 'content-type': 'application/json', authorization: msg.authorization },
          body: JSON.stringify({ question, strategy }),
          signal,
        }),
      () => performance.now(),
      signal,
    )
  try {
    for await (const event of runScaleTest(msg.plan, { send, timer: realTimer }, controller.signal)) {
      self.postMessage({ type: 'event', event })
    }
  } catch (err) {
    self.postMessage({ type: 'error', message: (err as Error).message })
  }
  self.postMessage({ type: 'end' })
}

self.postMessage({ type: 'ready' })
