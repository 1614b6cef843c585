// The cartridge compiler on a thread of its own (started by CompileThreads): answers each request
// with the compiled section (the cartridge's and vectors' buffers transferred, not copied) or the
// error's message.

import { prepareHypernyms, staticVectorBuffers, staticVectorTable, synonymTable } from '../text/index'
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
  const { id, text, vectors, index, tables } = e.data as CompileRequest
  let section: CompiledSection
  try {
    if (tables) {
      // The synonyms first (the largest), then the noun kinds and the static vectors, whose buffers
      // go over without a copy (a table of the thread's own is read again should it need one).
      const synonyms = synonymTable()
      const vectors = staticVectorTable()
      const reply = { type: 'tables', id, synonyms, hypernyms: prepareHypernyms(), vectors } as const
      self.postMessage(reply satisfies CompileReply, staticVectorBuffers(vectors))
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
}
