import { onboardBase, squadArticles, squadQuestions, startBench } from './lib/harness'
import { readSse } from '../src/features/economics/lib/sse-read'
const questions = squadQuestions()
const queries = Array.from({ length: 16 }, (_, i) => questions[(i * 7919) % questions.length]!.question)
const b = await startBench()
const base = await onboardBase(b, 'squad-dev', squadArticles())
const N = 300
async function viaHandle(strategy: string, parse: boolean) {
  const t0 = performance.now()
  for (let i = 0; i < N; i++) {
    const res = await b.app.handle(new Request(`http://x/v1/corpora/${base.id}/chat/stream`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${b.queryKey}` }, body: JSON.stringify({ question: queries[i % 16], strategy }) }))
    if (parse) { for await (const e of readSse(res.body!)) { if (e.event === 'done') break } } else await res.text()
  }
  return (performance.now() - t0) / N
}
async function viaFetch(strategy: string) {
  const t0 = performance.now()
  for (let i = 0; i < N; i++) {
    const res = await fetch(`${b.url}/v1/corpora/${base.id}/chat/stream`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${b.queryKey}` }, body: JSON.stringify({ question: queries[i % 16], strategy }) })
    await res.text()
  }
  return (performance.now() - t0) / N
}
async function viaChat(strategy: string) {
  const t0 = performance.now()
  for (let i = 0; i < N; i++) {
    const res = await b.app.handle(new Request(`http://x/v1/corpora/${base.id}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${b.queryKey}` }, body: JSON.stringify({ question: queries[i % 16], strategy }) }))
    await res.text()
  }
  return (performance.now() - t0) / N
}
for (let round = 0; round < 2; round++)
for (const s of ['cart', 'rag']) {
  console.log(s, 'handle+text', (await viaHandle(s, false)).toFixed(2), 'handle+readSse', (await viaHandle(s, true)).toFixed(2), 'fetch same proc', (await viaFetch(s)).toFixed(2), 'chat json', (await viaChat(s)).toFixed(2))
}
await b.stop()
