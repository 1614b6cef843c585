// `npm run bench memory` (issue 38): where the server's memory goes. Two parts, each figure read
// from /proc (VmRSS now, VmHWM the peak so far):
// 1. Each static table and the encoder alone, each in a fresh process (`bun bench/memory.bench.ts
//    table <name>`): the resident set and the JavaScript heap (bun:jsc heapStats) it adds.
// 2. Engram's executable as operators run it (lib/engram-process.ts; BENCH_ENGRAM=<path> runs
//    another build; BENCH_MEMORY_BUILDS, below, several side by side), with the default configuration
//    and ENGRAM_* settings of the shell: idle after the admin's registration, after onboarding each
//    scale (BENCH_SCALES, default `1`: the 24 squad-dev articles repeated), 12 s later (the compile
//    thread stops when idle), after BENCH_QUESTIONS (default 100) questions by rag, then by cart
//    (with their latency over HTTP, p50 and p90), and the peak. Prints; asserts nothing.
import { heapStats } from 'bun:jsc'
import { readFileSync } from 'node:fs'
import { spawnEngram } from './lib/engram-process'
import { benchSample, onboardBase, scaled, squadArticles } from './lib/harness'

const MiB = 1024 * 1024
const mb = (bytes: number) => (bytes / MiB).toFixed(0)

/** This process's resident set and peak, in bytes. */
function own(): { rss: number; peak: number } {
  const s = readFileSync('/proc/self/status', 'utf8')
  const kib = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0) * 1024
  return { rss: kib('VmRSS'), peak: kib('VmHWM') }
}

const PASSAGE =
  'The city was almost completely destroyed during the Second World War and its historic Old Town was rebuilt after the war, becoming a World Heritage Site in 1980. '

/** Loads one table (or runs the encoder) in this process and prints what it added. */
async function table(name: string): Promise<void> {
  const text = await import('../src/features/engine/text/index')
  const loads: Record<string, () => Promise<unknown> | unknown> = {
    synonyms: text.prepareSynonyms,
    hypernyms: text.prepareHypernyms,
    'static vectors': text.prepareStaticVectors,
  }
  Bun.gc(true)
  const before = { ...own(), heap: heapStats().heapSize }
  if (name === 'encoder') {
    const { EncoderThread } = await import('../src/features/engine/support/index')
    const t = new EncoderThread({ idleMs: 600_000, onFailure: () => {} })
    const step = async (label: string, texts: string[]) => {
      await t.embed(texts)
      const m = own()
      console.log(
        `  encoder, ${label}: +${mb(m.rss - before.rss)} MB resident, peak +${mb(m.peak - before.peak)} MB`,
      )
    }
    await step('loaded, one text', ['hello'])
    await step(
      'a question and 5 passages',
      Array.from({ length: 6 }, (_, i) => `${PASSAGE.repeat(2)} ${i}`),
    )
    await step(
      '64 passages at once',
      Array.from({ length: 64 }, (_, i) => `${PASSAGE.repeat(2)} ${i}`),
    )
    t.close()
    return
  }
  await loads[name]!()
  Bun.gc(true)
  const after = { ...own(), heap: heapStats().heapSize }
  console.log(
    `  ${name}: +${mb(after.rss - before.rss)} MB resident (peak +${mb(after.peak - before.peak)}), heap +${((after.heap - before.heap) / MiB).toFixed(1)} MB`,
  )
}

if (process.argv[2] === 'table') {
  await table(process.argv[3]!)
  process.exit(0)
}

console.log('Static tables and the encoder, each alone in a fresh process (source, not the executable):')
for (const name of ['synonyms', 'hypernyms', 'static vectors', 'encoder']) {
  const run = Bun.spawnSync([process.execPath, import.meta.path, 'table', name], {
    stdout: 'inherit',
    stderr: 'inherit',
  })
  if (run.exitCode !== 0) console.log(`  ${name}: failed (${run.exitCode})`)
}

// BENCH_MEMORY_BUILDS="old=<path>,new=<path>": each scale is run by each build in turn (a side-by-side
// run on one machine); by default the one build BENCH_ENGRAM names (this checkout's otherwise).
const BUILDS = (process.env.BENCH_MEMORY_BUILDS ?? `=${process.env.BENCH_ENGRAM ?? ''}`)
  .split(',')
  .map((b) => b.split('='))
  .map(([name, path]) => ({ name: name || 'this checkout', path: path ?? '' }))
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 100)
const SCALES = (process.env.BENCH_SCALES ?? '1').split(',').filter(Boolean)
const articles = squadArticles()
const sample = benchSample(QUESTIONS)
console.log('\nThe server, MB resident now / peak so far:')
for (const scale of SCALES)
  for (const build of BUILDS) {
    process.env.BENCH_ENGRAM = build.path
    const e = await spawnEngram()
    try {
      const line = (label: string) => {
        const m = e.memory()
        console.log(`  ${build.name} ${scale}x ${label}: ${mb(m.rss)} / ${mb(m.peak)}`)
      }
      line('idle, after registration')
      const base = await onboardBase(e, `memory-${scale}`, scaled(articles, Number(scale)))
      line(`onboarded (${base.mb.toFixed(1)} MB in ${base.trainSeconds.toFixed(0)} s)`)
      await Bun.sleep(12_000)
      line('12 s later')
      for (const strategy of ['rag', 'cart']) {
        const times: number[] = []
        for (const q of sample) {
          const t0 = performance.now()
          const res = await fetch(`${e.url}/v1/corpora/${base.id}/chat`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${e.queryKey}` },
            body: JSON.stringify({ question: q.question, strategy, k: 5 }),
          })
          if (!res.ok) throw new Error(`chat: ${res.status} ${await res.text()}`)
          await res.arrayBuffer()
          times.push(performance.now() - t0)
        }
        // Latency over HTTP, one client: memory settings must not cost answers their speed.
        times.sort((a, b) => a - b)
        const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1)
        line(`${sample.length} questions by ${strategy} (p50 ${at(0.5)} ms, p90 ${at(0.9)} ms)`)
      }
    } finally {
      await e.stop()
    }
  }
