// The naive baseline of issue 22 (as ../shared/data/README.md defines it): what anyone could write
// in an afternoon. Every document is cut into 120-word windows overlapping by half, indexed in an
// in-memory SQLite FTS5 table, and a question is answered by a bare `Bun.serve`: the five best windows
// by FTS5 BM25 are the sources, and the answer is the one sentence of the top three windows holding
// the most distinct question terms. `bun run bench/lib/baseline-server.ts DIR` indexes every file
// under DIR, then prints one JSON line ({url, buildSeconds, mb, windows}) and serves POST {question}
// until killed; spawnBaseline runs it so, in a process of its own, so its memory and CPU are its own.
import { Database } from 'bun:sqlite'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { memoryOf } from './memory-of-process'

/** Words a question shares with everything; matching or counting them would only add noise. */
const STOPWORDS = new Set(
  (
    'a an and are as at be by did do does for from had has have he her his how in is it its of on or ' +
    'she that the their there they this to was were what when where which who whom whose why will with'
  ).split(' '),
)

const WINDOW_WORDS = 120
// Windows overlap by half, so an answer cut by one window's edge is whole in the next. On the 24
// articles this scores about the README's figures (recall@1 0.770, recall@5 0.918, containment 0.637
// at 30.8 words, against 0.780, 0.937, 0.645 at 30.8); windows end to end score lower (0.723, 0.903).
const WINDOW_STEP = 60

/** The question's distinct content words, lower-cased. */
function terms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return [...new Set(words.filter((w) => !STOPWORDS.has(w)))]
}

/** Indexes the files and returns the search; the build is timed from the texts in memory. */
function buildIndex(texts: { path: string; text: string }[]) {
  const db = new Database(':memory:')
  db.run('CREATE VIRTUAL TABLE windows USING fts5(doc UNINDEXED, body)')
  const insert = db.prepare('INSERT INTO windows (doc, body) VALUES (?, ?)')
  let count = 0
  db.transaction(() => {
    for (const { path, text } of texts) {
      const words = text.split(/\s+/).filter(Boolean)
      // The last window reaches the end of the text; none is a tail already inside the one before.
      for (let i = 0; i < words.length; i += WINDOW_STEP) {
        insert.run(path, words.slice(i, i + WINDOW_WORDS).join(' '))
        count++
        if (i + WINDOW_WORDS >= words.length) break
      }
    }
  })()
  const search = db.prepare<{ doc: string; body: string }, [string]>(
    'SELECT doc, body FROM windows WHERE windows MATCH ? ORDER BY rank LIMIT 5',
  )
  return { count, search }
}

/** The answer to one question: the best sentence of the top three windows, and the five windows. */
function answer(search: ReturnType<typeof buildIndex>['search'], question: string) {
  const words = terms(question)
  if (words.length === 0) return { answer: '', sources: [] }
  const hits = search.all(words.map((w) => `"${w}"`).join(' OR '))
  let best = ''
  let bestCount = 0
  for (const hit of hits.slice(0, 3)) {
    for (const sentence of hit.body.split(/(?<=[.!?])\s+/)) {
      const have = new Set(sentence.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      const count = words.filter((w) => have.has(w)).length
      if (count > bestCount) [best, bestCount] = [sentence, count]
    }
  }
  return { answer: best, sources: hits.map((h) => ({ document: h.doc, snippet: h.body })) }
}

/** Every file under `dir`, recursively. */
function readTree(dir: string, prefix = ''): { path: string; text: string }[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = join(prefix, e.name)
    return e.isDirectory() ? readTree(dir, rel) : [{ path: rel, text: readFileSync(join(dir, rel), 'utf8') }]
  })
}

/** Indexes `dir` and serves questions on a loopback port; prints the figures of the build. */
function main(dir: string) {
  const texts = readTree(dir)
  const t0 = performance.now()
  const index = buildIndex(texts)
  const buildSeconds = (performance.now() - t0) / 1000
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const { question } = (await req.json()) as { question: string }
      return Response.json(answer(index.search, question))
    },
  })
  const mb = texts.reduce((a, t) => a + Buffer.byteLength(t.text), 0) / 1e6
  console.log(
    JSON.stringify({ url: `http://127.0.0.1:${server.port}`, buildSeconds, mb, windows: index.count }),
  )
}

/** The baseline in its own process, indexing every file under `dir`. */
export async function spawnBaseline(dir: string) {
  const proc = Bun.spawn([process.execPath, 'run', import.meta.path, dir], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let out = ''
  while (!out.includes('\n')) {
    const { done, value } = await reader.read()
    if (done) throw new Error('the baseline server exited before it listened')
    out += decoder.decode(value, { stream: true })
  }
  const ready = JSON.parse(out.split('\n')[0]!) as {
    url: string
    buildSeconds: number
    mb: number
    windows: number
  }
  return {
    ...ready,
    memory: () => memoryOf(proc.pid),
    async stop() {
      proc.kill()
      await proc.exited
    },
  }
}

if (import.meta.main) main(process.argv[2]!)
