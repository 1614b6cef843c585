// The cartridge compiler on a thread of its own (started by CompileThreads): answers each request
// with the compiled section (the cartridge's and vectors' buffers transferred, not copied) or the
// error's message. Requests wait here by kind: a run's chunking first (the run waits for it), then
// the tables questions read (a step at a time, so a run's chunking waits for one step at most, and a
// step at least every TABLES_EVERY groups), then the deferred build's compiles.

import {
  adoptStaticVectors,
  type HypernymTable,
  prepareHypernyms,
  type SynonymTable,
  staticVectors,
  synonymTable,
} from '../text/index'
import {
  type CompiledSection,
  type CompileReply,
  type CompileRequest,
  compileSection,
  transferables,
} from './compile-messages'
import { indexSection, packSections } from './index-section'

declare const self: Worker

/** A tables request under way: the synonyms first (the largest), then the noun kinds, then the static vectors. */
interface TablesWork {
  id: number
  synonyms?: SynonymTable
  hypernyms?: HypernymTable
}

const chunks: CompileRequest[] = []
const tables: TablesWork[] = []
const compiles: CompileRequest[] = []
let draining = false
/**
 * Groups chunked since the tables' last step: while tables wait, they get a step after every
 * TABLES_EVERY groups, so a run whose groups keep the thread busy does not keep questions (which wait
 * for the synonym table) waiting until it ends.
 */
let chunkedSinceStep = 0
const TABLES_EVERY = 2

self.onmessage = (e: MessageEvent) => {
  const request = e.data as CompileRequest
  // The event loop's static vectors (shared memory): used instead of reading a copy of its own.
  if (request.staticVectors) adoptStaticVectors(request.staticVectors)
  if (request.index) chunks.push(request)
  else if (request.tables) {
    if (tables.length === 0) chunkedSinceStep = 0
    tables.push({ id: request.id })
  } else compiles.push(request)
  if (!draining) {
    draining = true
    setImmediate(drain)
  }
}

/** Does one piece of the waiting work, then lets messages that came meanwhile in before the next. */
function drain(): void {
  const chunk = tables.length > 0 && chunkedSinceStep >= TABLES_EVERY ? undefined : chunks.shift()
  if (chunk) {
    // A group the event loop took back (and chunked itself) is dropped: nothing to do or to answer.
    if (taken(chunk)) chunkGroup(chunk)
  } else if (tables.length > 0) {
    chunkedSinceStep = 0
    const work = tables[0]!
    try {
      tablesStep(work)
    } catch (err) {
      tables.shift()
      answer(work.id, () => {
        throw err
      })
    }
  } else {
    const request = compiles.shift()
    if (request) compile(request)
  }
  draining = chunks.length + tables.length + compiles.length > 0
  if (draining) setImmediate(drain)
}

/** Chunks a run's group and answers it. */
function chunkGroup(chunk: CompileRequest): void {
  chunkedSinceStep++
  answer(chunk.id, () => {
    const sections = packSections(
      chunk.index!.map((text) => indexSection(text, chunk.prefix)),
      chunk.prefix,
    )
    return { type: 'indexed', id: chunk.id, sections }
  })
  // A group's garbage collected once the thread has caught up with the run (as after a compile):
  // else the thread's heap grew with the run's groups and held the growth while it lived.
  if (chunks.length === 0) Bun.gc(false)
}

/** Whether this thread takes a group to chunk (it is not the event loop's already). */
function taken(chunk: CompileRequest): boolean {
  return !chunk.claim || Atomics.compareExchange(chunk.claim, 0, 0, 1) === 0
}

/** One step of the tables (the static vectors' memory is shared with the event loop, not copied). */
function tablesStep(work: TablesWork): void {
  if (!work.synonyms) {
    work.synonyms = synonymTable()
    return
  }
  if (!work.hypernyms) {
    work.hypernyms = prepareHypernyms()
    return
  }
  tables.shift()
  const { id, synonyms, hypernyms } = work
  answer(id, () => ({ type: 'tables', id, synonyms, hypernyms, vectors: staticVectors() }))
}

/** Posts what `make` answers (a chunked group's numbers handed over, not copied), or the message of the error it threw. */
function answer(id: number, make: () => CompileReply): void {
  let reply: CompileReply
  try {
    reply = make()
  } catch (err) {
    reply = { type: 'error', id, message: (err as Error)?.message ?? String(err) }
  }
  self.postMessage(reply, reply.type === 'indexed' ? [reply.sections.ints.buffer as ArrayBuffer] : [])
}

function compile({ id, text, vectors }: CompileRequest): void {
  let section: CompiledSection
  try {
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
