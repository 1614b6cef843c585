// Where a chat question's main-thread CPU goes, side by side across trees: chat-path.bench.ts's set-up
// (each tree's own harness, the 24 squad-dev articles, the deferred build waited for), with chosen
// methods of each tree wrapped on their prototypes to add up the CPU of the calling thread from the
// call until its promise settles (clock_gettime(CLOCK_THREAD_CPUTIME_ID) through FFI: precise to the
// nanosecond, where /proc's schedstat moves in scheduler ticks). The questions run one at a time, so
// what settles in between is the question's own work. Nested methods count in each of theirs: read
// each line on its own. A method a tree lacks is left out. Medians of BENCH_ROUNDS (default 6)
// rounds of BENCH_QUESTIONS (default 300) a strategy (BENCH_STRATEGIES, default cart).
// `bun run bench/chat-parts.bench.ts /path/to/other/checkout`. Linux with glibc; prints, asserts nothing.
import { dlopen, FFIType, ptr } from 'bun:ffi'
import { resolve } from 'node:path'

const roots = [resolve(import.meta.dir, '..'), ...process.argv.slice(2).map((r) => resolve(r))]
const N = Number(process.env.BENCH_QUESTIONS ?? 300)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const STRATEGIES = (process.env.BENCH_STRATEGIES ?? 'cart').split(',')

/** Methods measured: module (from a tree's root), class, method. */
const TARGETS: [string, string, string][] = [
  ['src/features/answers/answers.service.ts', 'AnswersService', 'chat'],
  ['src/features/engine/engine.service.ts', 'Engine', 'ask'],
  ['src/features/corpora/corpora.places.repo.ts', 'PlacesRepo', 'place'],
  ['src/features/answers/answers.allowance.ts', 'Allowance', 'take'],
  ['src/features/plans/plans.repo.ts', 'PlansRepo', 'take'],
  ['src/features/answers/answers.repo.ts', 'QuestionLog', 'answered'],
  ['src/platform/events/outbox.ts', 'Outbox', 'publish'],
  ['src/platform/events/outbox.ts', 'Outbox', 'emit'],
  ['src/features/usage/usage.service.ts', 'UsageService', 'recordQueries'],
  ['src/platform/db/store.ts', 'SqliteStore', 'unit'],
  ['src/features/corpora/corpora.service.ts', 'CorporaService', 'servingState'],
  ['src/features/keys/keys.service.ts', 'KeysService', 'authenticate'],
  ['src/platform/storage/envelope-store.ts', 'EnvelopeStore', 'assertReadable'],
]

const libc = dlopen('libc.so.6', {
  clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
})
const clock = new BigInt64Array(2)
const clockPtr = ptr(clock)
const CLOCK_THREAD_CPUTIME_ID = 3
/** The calling thread's CPU time, in ns. */
function threadNs(): number {
  libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, clockPtr)
  return Number(clock[0]) * 1e9 + Number(clock[1])
}

type Method = (...args: unknown[]) => unknown

/** Wraps each target a tree has; answers the running sums of CPU ns by `Class.method`. */
async function wrapTargets(root: string): Promise<Map<string, number>> {
  const sums = new Map<string, number>()
  for (const [file, cls, name] of TARGETS) {
    const mod = (await import(`${root}/${file}`).catch(() => ({}))) as Record<string, { prototype?: object }>
    const proto = mod[cls]?.prototype as Record<string, Method> | undefined
    const original = proto?.[name]
    if (!proto || typeof original !== 'function') continue
    const key = `${cls}.${name}`
    sums.set(key, 0)
    const add = (from: number) => sums.set(key, sums.get(key)! + threadNs() - from)
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const from = threadNs()
      let out: unknown
      try {
        out = original.apply(this, args)
      } catch (e) {
        add(from)
        throw e
      }
      if (out instanceof Promise) return out.finally(() => add(from))
      add(from)
      return out
    }
  }
  return sums
}

interface Tree {
  root: string
  // biome-ignore lint/suspicious/noExplicitAny: each tree's own harness module, loaded by path
  h: any
  // biome-ignore lint/suspicious/noExplicitAny: each tree's own bench server
  b: any
  base: string
  sums: Map<string, number>
}

const trees: Tree[] = []
for (const root of roots) {
  const sums = await wrapTargets(root)
  const h = await import(`${root}/bench/lib/harness.ts`)
  const b = await h.startBench()
  const base = await h.onboardBase(b, 'chat-parts', h.squadArticles())
  await h.cartReady(b, base.id)
  trees.push({ root, h, b, base: base.id, sums })
}
const sample: { question: string }[] = trees[0]!.h.benchSample(N)

async function ask(t: Tree, question: string, strategy: string): Promise<void> {
  const res: Response = await t.b.app.handle(
    new Request(`http://bench.test/v1/corpora/${t.base}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.b.queryKey}` },
      body: JSON.stringify({ question, strategy, k: 5 }),
    }),
  )
  if (!res.ok) throw new Error(`chat: ${res.status} ${await res.text()}`)
  await res.json()
}

// An untimed pass that warms caches.
for (const t of trees) for (const s of STRATEGIES) for (const q of sample) await ask(t, q.question, s)

const figures = new Map<string, Map<string, number[]>>()
for (let round = 0; round < ROUNDS; round++) {
  for (const t of round % 2 ? trees.toReversed() : trees) {
    for (const s of STRATEGIES) {
      for (const k of t.sums.keys()) t.sums.set(k, 0)
      const from = threadNs()
      for (const q of sample) await ask(t, q.question, s)
      const f = figures.get(`${t.root.slice(-24).padEnd(24)} ${s}`) ?? new Map<string, number[]>()
      const add = (k: string, ns: number) => f.set(k, [...(f.get(k) ?? []), Math.round(ns / N / 1000)])
      add('the whole question', threadNs() - from)
      for (const [k, ns] of t.sums) add(k, ns)
      figures.set(`${t.root.slice(-24).padEnd(24)} ${s}`, f)
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
console.log(`chat, main-thread CPU µs a question (median of ${ROUNDS} rounds of ${N}; each round's after it)`)
for (const [tree, f] of figures) {
  console.log(tree)
  for (const [k, xs] of f)
    console.log(`  ${k.padEnd(30)} ${String(median(xs)).padStart(6)}   ${xs.join(' / ')}`)
}
for (const t of trees) await t.b.stop()
process.exit(0)
