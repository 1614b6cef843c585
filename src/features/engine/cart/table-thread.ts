import type { SynonymTable } from '../text/index'
import type { CompileReply, CompileWorker } from './compile-threads'

/**
 * The stemmed synonym table (synonymTable) built on a thread of its own, stopped once it answers: a
 * run's first chunks on the compile thread do not wait behind the table (0.2–0.45 s to build).
 * Rejects when the thread cannot start or fails; the table is then built where it is needed.
 */
export function synonymsOnThread(spawn: () => CompileWorker): Promise<SynonymTable> {
  return new Promise<SynonymTable>((resolve, reject) => {
    const worker = spawn()
    const end = (settle: () => void) => {
      worker.terminate()
      settle()
    }
    worker.onmessage = (e) => {
      const msg = e.data as CompileReply
      if (msg.type === 'tables') end(() => resolve(msg.synonyms))
      else end(() => reject(new Error(msg.type === 'error' ? msg.message : `unexpected reply ${msg.type}`)))
    }
    worker.onerror = (e) => {
      e.preventDefault?.()
      end(() => reject(new Error(e.message || 'unknown error')))
    }
    // An exit before its answer (once it answered, the promise is settled and this does nothing).
    worker.addEventListener('close', () => reject(new Error('the thread exited')))
    worker.postMessage({ id: 1, text: '', vectors: false, tables: true })
  })
}
