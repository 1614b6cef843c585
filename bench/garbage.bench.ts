// `npm run bench garbage`: the garbage a question leaves on the event loop's heap, in KB a request,
// for rag and cart (`engine.ask`, then the whole request through `app.handle`), against a GET of the
// base and a chat request refused by validation. Its young collections are what sets the 1x p99
// (bench/RESULTS.md, issue 38 session 34): fewer KB a question, later collections in a pass. Counted
// by JavaScriptCore's own log (BUN_JSC_logGC) in a child process: the heap's size before a young
// collection forced after 200 requests, less its size after a full one forced before them (after its
// sweep). The collector sizes its heap from the machine there (no BUN_JSC_forceRAMSize), so that no
// other collection falls among the requests; a round where one does is not counted (a collection
// running while they go on leaves what they allocate meanwhile uncounted). Prints the median of the
// rounds counted and each; asserts nothing. Counts move from one process to the next with what the
// optimizing JIT made of the hot functions: compare runs, not one figure.
import { writeSync } from 'node:fs'
import { benchSample, cartReady, onboardBase, squadArticles, startBench } from './lib/harness'

const ROUNDS = 5
const QUESTIONS = 200

/** One line the parent reads: a variant's start, or its end with the requests it made. */
const mark = (text: string) => writeSync(2, `[garbage] ${text}\n`)

/**
 * A turn of the event loop between requests, as between two requests a server receives: what a request
 * leaves for later (its answered event's write) runs there and is counted with it.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

async function child(): Promise<void> {
  const b = await startBench()
  const base = await onboardBase(b, 'garbage', squadArticles())
  await cartReady(b, base.id)
  const sample = benchSample(QUESTIONS)
  const engine = b.app.services.engine
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${b.queryKey}` }
  const handle = async (path: string, init: RequestInit = {}) =>
    (await b.app.handle(new Request(`http://bench${path}`, { headers, ...init }))).text()
  const chat = (body: unknown) =>
    handle(`/v1/corpora/${base.id}/chat`, { method: 'POST', body: JSON.stringify(body) })
  const variants: [string, (question: string) => Promise<unknown>][] = [
    ['engine.ask, rag', (question) => engine.ask(base.id, { question, strategy: 'rag', k: 5 })],
    ['engine.ask, cart', (question) => engine.ask(base.id, { question, strategy: 'cart', k: 5 })],
    ['chat request, rag', (question) => chat({ question, strategy: 'rag', k: 5 })],
    ['chat request, cart', (question) => chat({ question, strategy: 'cart', k: 5 })],
    ['GET of the base', () => handle(`/v1/corpora/${base.id}`)],
    ['chat request refused (422)', (question) => chat({ question, k: 'five' })],
  ]
  const pass = async (ask: (question: string) => Promise<unknown>) => {
    for (const q of sample) {
      await ask(q.question)
      await nextTurn()
    }
  }
  // Warmed: caches filled and code compiled before anything is counted.
  for (const [, ask] of variants) await pass(ask)
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, ask] of variants) {
      Bun.gc(true)
      mark(`start ${name}`)
      await pass(ask)
      Bun.gc(false)
      mark(`end ${sample.length} ${name}`)
    }
  await b.app.events.outbox.settled()
  await b.stop()
}

/**
 * KB a request by variant, from the collector's log: one figure a round in which no collection of
 * the event loop's heap fell between the two forced ones (a collection that runs while requests go
 * on leaves uncounted what they allocate meanwhile, and its sizes count more than garbage).
 */
export function garbageOf(log: string): Map<string, number[]> {
  const lines = log.split('\n')
  // The event loop's heap is the largest one.
  const largest = new Map<string, number>()
  for (const l of lines) {
    const m = /\[GC<(0x[0-9a-f]+)>: START M (\d+)kb/.exec(l)
    if (m) largest.set(m[1]!, Math.max(largest.get(m[1]!) ?? 0, Number(m[2])))
  }
  const main = [...largest].sort((a, b) => b[1] - a[1])[0]?.[0]
  const out = new Map<string, number[]>()
  let within = false
  let ending: { name: string; requests: number } | null = null
  let collections = 0
  let lastAfter: number | null = null
  for (const l of lines) {
    const marked = /^\[garbage\] (start|end) (?:(\d+) )?(.*)$/.exec(l)
    if (marked) {
      within = marked[1] === 'start'
      collections = 0
      if (!within) ending = { name: marked[3]!, requests: Number(marked[2]) }
      continue
    }
    const start = /\[GC<(0x[0-9a-f]+)>: START M (\d+)kb/.exec(l)
    if (start && start[1] === main) {
      if (within) collections++
      // The collection forced at a variant's end is logged after its mark.
      if (ending && lastAfter !== null && collections === 0) {
        const kb = (Number(start[2]) - lastAfter) / ending.requests
        out.set(ending.name, [...(out.get(ending.name) ?? []), kb])
      }
      ending = null
    }
    // A full collection's size after is the one its sweep leaves, logged on a line of its own.
    const end = /GC<(0x[0-9a-f]+)>(?:.*=> (\d+)kb, p=|: Full sweep: \d+kb => (\d+)kb)/.exec(l)
    if (end && end[1] === main) lastAfter = Number(end[2] ?? end[3])
  }
  return out
}

async function parent(): Promise<void> {
  const proc = Bun.spawn([process.execPath, 'run', import.meta.path], {
    env: { ...process.env, GARBAGE_CHILD: '1', BUN_JSC_logGC: '1', BUN_JSC_forceRAMSize: undefined },
    stdout: 'inherit',
    stderr: 'pipe',
  })
  const log = await new Response(proc.stderr).text()
  if ((await proc.exited) !== 0) throw new Error(`the measuring process failed:\n${log.slice(-2000)}`)
  // Some rounds count about 90 KB a request more than the others of the same process, all at once (not
  // found why): the lowest is printed beside the median.
  console.log(
    `garbage on the event loop's heap, KB a request (${QUESTIONS} squad-dev questions, 1x; median, lowest, rounds):`,
  )
  for (const [name, rounds] of garbageOf(log)) {
    const sorted = rounds.toSorted((a, b) => a - b)
    const median = sorted[rounds.length >> 1]!
    console.log(
      `  ${name.padEnd(28)} ${median.toFixed(1).padStart(6)} ${sorted[0]!.toFixed(1).padStart(6)}  (${rounds.map((kb) => kb.toFixed(1)).join(', ')})`,
    )
  }
}

if (import.meta.main) {
  if (process.env.GARBAGE_CHILD) await child()
  else await parent()
}
