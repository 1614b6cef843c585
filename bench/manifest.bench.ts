// Issue 32, item 7: does a large push manifest freeze the server? `engram serve` in a process of its
// own (bench/lib/engram-process.ts); three manifests of the largest size the server takes are sent
// at once to upload-urls, then to diff, then to commit (each on a base of its own, the content
// uploaded once and shared), while `GET /` is asked again and again, one request after the other.
// Prints the latency of `GET /` meanwhile, how long the manifests took, and the server's memory.
//   npm run bench manifest                     the server's own limit (platform info), 3 at once
//   bun run bench/manifest.bench.ts --files=100000 --at-once=3
// BENCH_ENGRAM=source serves from the sources instead of the compiled executable.
import { createHash } from 'node:crypto'
import { spawnEngram } from './lib/engram-process'
import { post } from './lib/harness'

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]
const atOnce = Number(arg('at-once') ?? 3)
const MB = 1024 * 1024

const server = await spawnEngram({ ENGRAM_LOG_LEVEL: 'error' })
const auth = { authorization: `Bearer ${server.token}` }
const info = (await (await fetch(`${server.url}/v1/platform/info`)).json()) as {
  limits: { max_manifest_files?: number }
}
// Before issue 32 the limit was the schema's 100,000 and platform info did not say it.
const files = Number(arg('files') ?? info.limits.max_manifest_files ?? 100_000)

/** A folder's worth of paths (about 60 bytes each, as a real share has), each with its own content. */
function manifest(n: number, sha: (i: number) => string) {
  return Array.from({ length: n }, (_, i) => ({
    path: `shared/dept-${i % 17}/project-${i % 251}/2026-${String(i % 12).padStart(2, '0')}/report-${i}.pdf`,
    sha256: sha(i),
    size: 10_000 + (i % 5000),
  }))
}
const hex = (i: number) => createHash('sha256').update(String(i)).digest('hex')

/** Asks `GET /` one request after the other until `stop`; returns each latency in ms. */
async function probe(stop: () => boolean): Promise<number[]> {
  const out: number[] = []
  while (!stop()) {
    const t0 = performance.now()
    await (await fetch(`${server.url}/`)).arrayBuffer()
    out.push(performance.now() - t0)
  }
  return out
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}

/** Sends `bodies` at once to `route` of their bases while probing; prints one line. */
async function phase(name: string, route: string, jobs: { base: string; body: string }[]) {
  let done = false
  const t0 = performance.now()
  const probing = probe(() => done)
  const answers = await Promise.all(
    jobs.map(async (j) => {
      const res = await fetch(`${server.url}/v1/corpora/${j.base}/documents/${route}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: j.body,
      })
      const text = await res.text()
      return { status: res.status, ms: performance.now() - t0, bytes: text.length, text }
    }),
  )
  done = true
  const lat = await probing
  const mem = server.memory()
  const bad = answers.find((a) => a.status >= 300)
  console.log(
    `${name.padEnd(12)} ${answers.map((a) => a.status).join('/')}  manifests done in ${answers
      .map((a) => `${(a.ms / 1000).toFixed(2)} s`)
      .join(', ')}; GET / x${lat.length}: p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(
      1,
    )} ms, max ${Math.max(...lat).toFixed(1)} ms; server RSS ${(mem.rss / MB).toFixed(0)} MB (peak ${(
      mem.peak / MB
    ).toFixed(0)} MB); answer ${(answers[0]!.bytes / MB).toFixed(1)} MB`,
  )
  if (bad) console.log(`  refused: ${bad.text.slice(0, 300)}`)
}

try {
  const idle = server.memory()
  const bases: string[] = []
  for (let i = 0; i < atOnce; i++) {
    bases.push((await post(server.url, '/v1/corpora', server.token, { name: `manifest ${i}` })).id as string)
  }
  const body = JSON.stringify({ files: manifest(files, hex) })
  console.log(
    `${atOnce} manifests of ${files.toLocaleString('en-US')} files (${(body.length / MB).toFixed(1)} MB each) at once; server RSS idle ${(idle.rss / MB).toFixed(0)} MB`,
  )
  const quiet = await (async () => {
    let n = 0
    return probe(() => ++n > 200)
  })()
  console.log(
    `idle         GET / x${quiet.length}: p50 ${pct(quiet, 50).toFixed(1)} ms, max ${Math.max(...quiet).toFixed(1)} ms`,
  )
  await phase(
    'upload-urls',
    'upload-urls',
    bases.map((base) => ({ base, body })),
  )
  await phase(
    'diff',
    'diff',
    bases.map((base) => ({ base, body })),
  )
  // A commit needs the content: one small file uploaded to each base, which every path shares.
  const content = 'The same bytes behind every path of the commit.'
  const sha = createHash('sha256').update(content).digest('hex')
  for (const base of bases) {
    const res = await fetch(
      `${server.url}/v1/corpora/${base}/documents/raw?${new URLSearchParams({ path: 'seed.txt', sha256: sha })}`,
      { method: 'PUT', headers: auth, body: content },
    )
    if (!res.ok) throw new Error(`raw: ${res.status} ${await res.text()}`)
  }
  const commit = JSON.stringify({
    files: manifest(files, () => sha).map((f) => ({ ...f, size: content.length })),
  })
  await phase(
    'commit',
    'commit',
    bases.map((base) => ({ base, body: commit })),
  )
} finally {
  await server.stop()
}
