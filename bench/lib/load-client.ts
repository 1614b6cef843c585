// The load generator of bench/lib/harness.ts, in its own process so it does not share the
// server's thread. Reads {url, key, bodies, concurrency, requests} on stdin; prints figures as JSON.
const input = JSON.parse(await new Response(Bun.stdin.stream()).text()) as {
  url: string
  key: string
  bodies: unknown[]
  concurrency: number
  requests: number
}
const latencies: number[] = []
let errors = 0
let next = 0
const start = performance.now()
const worker = async () => {
  for (;;) {
    const i = next++
    if (i >= input.requests) return
    const t0 = performance.now()
    const res = await fetch(input.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${input.key}` },
      body: JSON.stringify(input.bodies[i % input.bodies.length]),
    })
    await res.arrayBuffer()
    if (res.status !== 200) errors++
    latencies.push(performance.now() - t0)
  }
}
await Promise.all(Array.from({ length: input.concurrency }, worker))
const seconds = (performance.now() - start) / 1000
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0
console.log(
  JSON.stringify({ qps: latencies.length / seconds, p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), errors }),
)

export {}
