// Ingest throughput and memory, in process through `app.handle` (HTTP parsing of the multipart body,
// streaming to the local object store, registration, then the background extraction jobs):
//   1. the 24 SQuAD articles in one upload request, then their extraction;
//   2. the 619-page PDF, uploaded then extracted;
//   3. a 200 MB file (`--mb=N`) generated on the fly and uploaded, with RSS sampled throughout:
//      it must stay bounded (the body streams to disk, never whole in memory);
//   4. 5,000 one-paragraph files of the articles (`--phase=small`), 50 a request as a client
//      uploading a folder sends them, then their extraction.
// Each phase runs in a child process of its own so its peak RSS is its own. Prints; asserts nothing.
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { testApp } from '../tests/helpers/app'
import { FIXTURE_DATA as DATA } from '../tests/helpers/fixture-data'

const MB = 1024 * 1024
const BOUNDARY = 'engram-bench-boundary'
const enc = new TextEncoder()

/** Samples RSS every 5 ms while `work` runs; returns seconds taken and the peak. */
async function measure<T>(work: () => Promise<T>) {
  Bun.gc(true)
  const before = process.memoryUsage.rss()
  let peak = before
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 5)
  const t0 = performance.now()
  const result = await work()
  const seconds = (performance.now() - t0) / 1000
  clearInterval(timer)
  peak = Math.max(peak, process.memoryUsage.rss())
  return { result, seconds, before, peak }
}

/** A multipart body of whole files, as bytes. */
function multipart(files: { name: string; bytes: Uint8Array }[]): Uint8Array {
  const parts: Uint8Array[] = []
  for (const f of files) {
    parts.push(
      enc.encode(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${f.name}"\r\n\r\n`,
      ),
      f.bytes,
      enc.encode('\r\n'),
    )
  }
  parts.push(enc.encode(`--${BOUNDARY}--\r\n`))
  return new Uint8Array(Buffer.concat(parts))
}

/** A multipart body of one generated text file of `total` bytes, produced as it is read. */
function generatedUpload(total: number): ReadableStream<Uint8Array> {
  const line = enc.encode('Streaming upload benchmark line: the quick brown fox jumps over the lazy dog.\n')
  const block = new Uint8Array(256 * 1024)
  for (let at = 0; at < block.length; at += line.length) block.set(line.subarray(0, block.length - at), at)
  let sent = -1
  return new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (sent < 0) {
          c.enqueue(
            enc.encode(
              `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n\r\n`,
            ),
          )
          sent = 0
        } else if (sent < total) {
          const n = Math.min(block.length, total - sent)
          c.enqueue(block.slice(0, n))
          sent += n
        } else {
          c.enqueue(enc.encode(`\r\n--${BOUNDARY}--\r\n`))
          c.close()
        }
      },
    },
    { highWaterMark: 0 },
  )
}

async function setup() {
  const t = testApp({
    env: {
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      ENGRAM_RATE_LIMITS: 'off',
      ENGRAM_INGEST_MAX_FILE_BYTES: String(8 * 1024 * MB),
      ENGRAM_INGEST_MAX_REQUEST_BYTES: String(8 * 1024 * MB),
    },
  })
  const reg = await t.request('/v1/auth/register', {
    method: 'POST',
    json: { email: 'bench@example.com', password: 'correct horse', workspace_name: 'Bench', name: 'B' },
  })
  const token = ((await reg.json()) as { access_token: string }).access_token
  const base = await t.request('/v1/corpora', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    json: { name: 'bench' },
  })
  const corpusId = ((await base.json()) as { id: string }).id
  const post = (body: ReadableStream<Uint8Array> | Uint8Array) =>
    t.request(`/v1/corpora/${corpusId}/documents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body: body as BodyInit,
    })
  return { t, post }
}

const mb = (b: number) => (b / MB).toFixed(0)

async function files(
  label: string,
  list: { name: string; bytes: Uint8Array }[],
  perRequest = list.length,
): Promise<void> {
  const { t, post } = await setup()
  const bytes = list.reduce((n, f) => n + f.bytes.byteLength, 0)
  const bodies: Uint8Array[] = []
  for (let i = 0; i < list.length; i += perRequest) bodies.push(multipart(list.slice(i, i + perRequest)))
  const up = await measure(async () => {
    for (const body of bodies) {
      const res = await post(body)
      if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }
  })
  const ex = await measure(() => t.jobs.scheduler.drain())
  const sections = t.db.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM documents').get()!.n
  const total = up.seconds + ex.seconds
  console.log(
    `${label}: ${list.length} documents, ${(bytes / MB).toFixed(2)} MB -> ${sections} rows (parents + sections)\n` +
      `  upload     ${(bytes / MB / up.seconds).toFixed(1)} MB/s, ${(list.length / up.seconds).toFixed(0)} docs/s (${(up.seconds * 1000).toFixed(0)} ms)\n` +
      `  extraction ${(bytes / MB / ex.seconds).toFixed(1)} MB/s, ${(list.length / ex.seconds).toFixed(1)} docs/s (${(ex.seconds * 1000).toFixed(0)} ms)\n` +
      `  end to end ${(bytes / MB / total).toFixed(1)} MB/s, ${(list.length / total).toFixed(1)} docs/s; ` +
      `peak RSS ${mb(Math.max(up.peak, ex.peak))} MB (${mb(up.before)} MB before)`,
  )
  t.close()
}

async function big(totalMb: number): Promise<void> {
  const { t, post } = await setup()
  const up = await measure(async () => {
    const res = await post(generatedUpload(totalMb * MB))
    if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${await res.text()}`)
    return res.json()
  })
  console.log(
    `one ${totalMb} MB file: upload ${(totalMb / up.seconds).toFixed(0)} MB/s (${up.seconds.toFixed(2)} s); ` +
      `peak RSS ${mb(up.peak)} MB, +${mb(up.peak - up.before)} MB over ${mb(up.before)} MB before`,
  )
  t.close()
}

const phase = process.argv.find((a) => a.startsWith('--phase='))?.slice(8)
const totalMb = Number(process.argv.find((a) => a.startsWith('--mb='))?.slice(5) ?? 200)
if (phase === 'articles') {
  const dir = join(DATA, 'squad-dev/articles')
  const list = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(dir, name))) }))
  await files('24 SQuAD articles', list)
} else if (phase === 'pdf') {
  const path = join(DATA, 'docs/pdf/Unstructured-IO_unstructured__DA-619p.pdf')
  await files('619-page PDF', [{ name: basename(path), bytes: new Uint8Array(readFileSync(path)) }])
} else if (phase === 'small') {
  const dir = join(DATA, 'squad-dev/articles')
  const paragraphs = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split(/\n[ \t]*\n/)
        .map((p) => p.trim())
        .filter(Boolean)
        .map((text, i) => ({ name: f.replace(/\.txt$/, `-${i}.txt`), text })),
    )
  const list = Array.from({ length: 5000 }, (_, i) => {
    const c = Math.floor(i / paragraphs.length)
    const p = paragraphs[i % paragraphs.length]!
    return { name: `copy${c}/${p.name}`, bytes: enc.encode(c === 0 ? p.text : `${p.text} (copy ${c}).`) }
  })
  await files('5,000 one-paragraph files, 50 a request', list, 50)
} else if (phase === 'big') {
  await big(totalMb)
} else {
  for (const p of ['articles', 'small', 'pdf', 'big']) {
    const run = Bun.spawnSync([process.execPath, import.meta.path, `--phase=${p}`, `--mb=${totalMb}`], {
      stdout: 'inherit',
      stderr: 'inherit',
    })
    if (run.exitCode !== 0) process.exitCode = 1
  }
}
