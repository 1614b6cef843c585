// The cartridge compiler on a thread of its own (started by CompileThreads): answers each request
// with the compiled section (the cartridge's and vectors' buffers transferred, not copied) or the
// error's message.

import { adoptStaticVectors, prepareHypernyms, staticVectors, synonymTable } from '../text/index'
import {
  type CompiledSection,
  type CompileReply,
  type CompileRequest,
  compileSection,
  transferables,
} from './compile-messages'
import { indexSection } from './index-section'

declare const self: Worker

self.onmessage = (e: MessageEvent) => {
  const { id, text, vectors, index, tables, staticVectors: shared } = e.data as CompileRequest
  // The event loop's static vectors (shared memory): used instead of reading a copy of its own.
  if (shared) adoptStaticVectors(shared)
  let section: CompiledSection
  try {
    if (tables) {
      // The synonyms first (the largest), then the noun kinds and the static vectors, which the
      // event loop shares with this thread (their memory is shared, not copied).
      const synonyms = synonymTable()
      const reply = {
        type: 'tables',
        id,
        synonyms,
        hypernyms: prepareHypernyms(),
        vectors: staticVectors(),
      } as const
      self.postMessage(reply satisfies CompileReply)
      return
    }
    if (index) {
      self.postMessage({ type: 'indexed', id, sections: index.map(indexSection) } satisfies CompileReply)
      return
    }
    section = compileSection(text, vectors)
  } catch (err) {
    self.postMessage({
      type: 'error',
      id,
      message: (err as Error)?.message ?? String(err),
    } satisfies CompileReply)
    return
  }
  self.postMessage({ type: 'done', id, ...section } satisfies CompileReply, transferables(section))
  // A compile's garbage collected now (a young-generation collection, a few milliseconds on this
  // thread): left to the collector's own pace, the deferred build's compiles grew the thread's heap
  // by 20-40 MB more, which set the 1x peak of the whole process (issue 38).
  Bun.gc(false)
}
