import { spawnEngram } from './lib/engram-process'
import { benchSample, cartReady, onboardBase, retrain, scaled, squadArticles } from './lib/harness'
const sample = benchSample(400)
const e = await spawnEngram()
const base = await onboardBase(e, 'scale-1', scaled(squadArticles(), 1))
await cartReady(e, base.id)
for (let i = 0; i < 3; i++) await retrain(e, base.id)
const ask = async (q: string, strategy: string) => {
  const t0 = performance.now()
  const res = await fetch(`${e.url}/v1/corpora/${base.id}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${e.queryKey}` }, body: JSON.stringify({ question: q, strategy, k: 5 }) })
  await res.json()
  return performance.now() - t0
}
for (const q of sample) for (const s of ['rag', 'cart']) await ask(q.question, s)
const pct = (xs: number[], p: number) => xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!
const slow: Record<string, Set<number>[]> = { rag: [], cart: [] }
for (let pass = 0; pass < 3; pass++) {
  const t: Record<string, number[]> = { rag: [], cart: [] }
  for (const [i, q] of sample.entries()) for (const s of i % 2 ? ['rag', 'cart'] : ['cart', 'rag']) t[s]!.push(await ask(q.question, s))
  for (const s of ['rag', 'cart']) {
    const xs = t[s]!
    const idx = xs.map((v, i) => [v, i] as const).toSorted((a, b) => b[0] - a[0]).slice(0, 8)
    slow[s]!.push(new Set(idx.map((x) => x[1])))
    console.log(`pass ${pass} ${s}: p50 ${pct(xs, 0.5).toFixed(2)} p99 ${pct(xs, 0.99).toFixed(2)} ratio ${(pct(xs, 0.99) / pct(xs, 0.5)).toFixed(2)} top8 ${idx.map(([v, i]) => `${i}:${v.toFixed(1)}`).join(' ')}`)
  }
}
for (const s of ['rag', 'cart']) { const [a, b, c] = slow[s]!; console.log(s, 'top8 in all 3 passes:', [...a!].filter((x) => b!.has(x) && c!.has(x))) }
await e.stop(); process.exit(0)
