// Syncing a base from a bucket: 10,000 small text files (`--files=N`) in an s3rver bucket, synced
// by an `s3` source in process through `app.handle` and the real scheduler drain:
//   1. the first sync: the time until its listing ends (every file fetched, stored and registered),
//      files per second, then the time until every document is extracted, and peak RSS (the sync
//      process's, sampled every 5 ms; later phases' peaks include what earlier ones left);
//   2. a re-sync with nothing changed (every file unchanged, none fetched);
//   3. a re-sync after 100 files are overwritten and 100 deleted.
// s3rver runs in a child process of its own, so the sync process's RSS and CPU are Engram's only;
// the sync phases run in another child, one app, one database. Prints; asserts nothing.
// s3rver reads every object's metadata file on every listing page (the key-order mending lists the
// bucket whole for each page): a paged listing of 10,000 keys cost it about 25 s, which would be
// most of what a re-sync measures. Its store keeps the whole listing until an object changes, as S3's index
// answers a page without reading the objects, so the figures are Engram's.
import { createRequire } from 'node:module'
import { Client } from 'minio'
import { testApp } from '../tests/helpers/app'
import { startS3rver } from '../tests/helpers/standins/s3rver'
import { seededRandom } from './lib/seeded'

const MB = 1024 * 1024
const BUCKET = 'engram-bench'
const PREFIX = 'shares/'
const CHANGED = 100
const DELETED = 100
/** Puts in flight while filling: enough that filling is not what the benchmark waits for. */
const FILL_CONCURRENCY = 32

interface Bucket {
  endpoint: string
  accessKey: string
  secretKey: string
}

function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
}

function clientFor(b: Bucket): Client {
  const url = new URL(b.endpoint)
  return new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: b.accessKey,
    secretKey: b.secretKey,
    region: 'us-east-1',
  })
}

const WORDS = (
  'invoice contract supplier warehouse budget quarterly forecast meeting minutes policy ' +
  'procedure safety audit compliance customer order shipment delay review approval manager ' +
  'engineer design specification release schedule risk mitigation vendor payment account ' +
  'balance report summary incident response backup server network storage capacity license ' +
  'renewal training onboarding handbook travel expense claim reimbursement project milestone'
).split(' ')

/** A file of varied text between a few hundred bytes and a few KB, headed by its number. */
function textOf(n: number, edition = 0): string {
  const next = seededRandom(n * 7919 + edition)
  const target = 300 + Math.floor(next() * 3700)
  const lines = [`Document ${n}${edition ? `, edition ${edition}` : ''}.`]
  let size = lines[0]!.length
  while (size < target) {
    const words = Array.from(
      { length: 8 + Math.floor(next() * 10) },
      () => WORDS[Math.floor(next() * WORDS.length)],
    )
    const sentence = `${words.join(' ')}.`
    lines.push(sentence.charAt(0).toUpperCase() + sentence.slice(1))
    size += sentence.length + 1
  }
  return lines.join('\n')
}

/** File n's key: spread over 20 departments and 10 projects each, some markdown. */
function keyOf(n: number): string {
  const name = `note-${String(n).padStart(6, '0')}.${n % 5 === 0 ? 'md' : 'txt'}`
  return `${PREFIX}dept-${String(n % 20).padStart(2, '0')}/project-${(n >> 5) % 10}/${name}`
}

/** Runs `work` on every item with `limit` in flight. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let at = 0
  const lane = async () => {
    while (at < items.length) await work(items[at++]!)
  }
  await Promise.all(Array.from({ length: limit }, lane))
}

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

interface Run {
  id: string
  status: string
  created: number
  updated: number
  unchanged: number
  deleted: number
  failed: number
  errors: { path: string; error: string }[]
}

/** The app, an admin, a base, an s3 connection and a source on the prefix. */
async function setup(bucket: Bucket) {
  const t = testApp({
    // s3rver listens on loopback, which a workspace's endpoint reaches only when allowed.
    env: {
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      ENGRAM_RATE_LIMITS: 'off',
      ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
    },
  })
  let token = ''
  const call = async <T>(method: string, path: string, json?: unknown): Promise<T> => {
    const res = await t.request(path, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(json === undefined ? {} : { json }),
    })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  const reg = await call<{ access_token: string }>('POST', '/v1/auth/register', {
    email: 'bench@example.com',
    password: 'correct horse',
    workspace_name: 'Bench',
    name: 'B',
  })
  token = reg.access_token
  const base = (await call<{ id: string }>('POST', '/v1/corpora', { name: 'bench' })).id
  const connection = await call<{ id: string }>('POST', '/v1/connections', {
    kind: 's3',
    name: 'Bench bucket',
    settings: { endpoint: bucket.endpoint, bucket: BUCKET },
    secrets: { access_key: bucket.accessKey, secret_key: bucket.secretKey },
  })
  const source = await call<{ id: string }>('POST', `/v1/corpora/${base}/sources`, {
    connection_id: connection.id,
    folder: PREFIX,
  })
  const listingOf = t.db.$client.query<{ listing: number }, [string]>(
    'SELECT listing FROM sync_runs WHERE id = ?',
  )

  /**
   * Syncs now and drains the queue. The listing's end is read from the run as the drain goes (every
   * 5 ms): the drain runs the sync job alone, then the extraction jobs it queued.
   */
  const sync = () =>
    measure(async () => {
      const t0 = performance.now()
      const started = await call<Run>('POST', `/v1/corpora/${base}/sources/${source.id}/sync`)
      let listed = Number.NaN
      const watch = setInterval(() => {
        if (Number.isNaN(listed) && listingOf.get(started.id)?.listing === 0) listed = performance.now() - t0
      }, 5)
      await t.jobs.scheduler.drain()
      clearInterval(watch)
      if (Number.isNaN(listed)) listed = performance.now() - t0
      const run = await call<Run>('GET', `/v1/corpora/${base}/sync-runs/${started.id}`)
      return { run, listingSeconds: listed / 1000 }
    })
  return { t, sync }
}

const fmt = (s: number) => `${s.toFixed(2)} s`
const perSecond = (n: number, s: number) => `${(n / s).toFixed(0)} files/s`

async function syncPhases(bucket: Bucket, files: number): Promise<void> {
  const { t, sync } = await setup(bucket)
  const rows: string[][] = []
  const row = (label: string, m: Awaited<ReturnType<typeof sync>>, looked: number) => {
    const { run, listingSeconds } = m.result
    rows.push([
      label,
      fmt(listingSeconds),
      perSecond(looked, listingSeconds),
      fmt(m.seconds),
      `${(m.peak / MB).toFixed(0)} MB`,
      `${run.status}: +${run.created} ~${run.updated} =${run.unchanged} -${run.deleted} !${run.failed}`,
    ])
    for (const e of run.errors.slice(0, 3)) console.log(`  ${label}: ${e.path}: ${e.error}`)
  }
  const before = process.memoryUsage.rss()

  row('first sync', await sync(), files)
  row('no-change re-sync', await sync(), files)

  const admin = clientFor(bucket)
  const numbers = Array.from({ length: files }, (_, i) => i)
  const changed = numbers.filter((n) => n % 50 === 1).slice(0, CHANGED)
  const deleted = numbers.filter((n) => n % 50 === 2).slice(0, DELETED)
  await pool(changed, FILL_CONCURRENCY, (n) => admin.putObject(BUCKET, keyOf(n), Buffer.from(textOf(n, 1))))
  await pool(deleted, FILL_CONCURRENCY, (n) => admin.removeObject(BUCKET, keyOf(n)))
  row(`${changed.length} changed, ${deleted.length} deleted`, await sync(), files - deleted.length)

  const header = ['phase', 'listing', 'rate', 'with extraction', 'peak RSS', 'run']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(`${files} files under ${PREFIX}; RSS before the first sync ${(before / MB).toFixed(0)} MB`)
  console.log([line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'))
  t.close()
}

type StoreMethod = (this: object, ...args: unknown[]) => Promise<unknown>

/** Makes s3rver's filesystem store keep whole listings until an object is written or deleted. */
function cacheListings(): void {
  const store = createRequire(import.meta.url)('s3rver/lib/stores/filesystem').prototype as Record<
    string,
    StoreMethod
  >
  const listings = new Map<string, Promise<unknown>>()
  const list = store.listObjects!
  store.listObjects = function (this: object, bucket, options) {
    const o = options as { prefix?: string; delimiter?: string; startAfter?: string; maxKeys?: number }
    if (o.startAfter || o.maxKeys !== Number.POSITIVE_INFINITY) return list.call(this, bucket, options)
    const key = JSON.stringify([bucket, o.prefix ?? '', o.delimiter ?? ''])
    if (!listings.has(key)) listings.set(key, list.call(this, bucket, options))
    return listings.get(key)!
  }
  for (const name of ['putObject', 'copyObject', 'deleteObject', 'putObjectMultipart']) {
    const write = store[name]!
    store[name] = function (this: object, ...args) {
      listings.clear()
      return write.apply(this, args).finally(() => listings.clear())
    }
  }
}

/** Starts the s3rver child and reads the address it prints. */
async function startBucketProcess() {
  const child = Bun.spawn([process.execPath, import.meta.path, '--phase=s3rver'], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = child.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error('the s3rver process ended before it was ready')
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { child, bucket: JSON.parse(text.slice(0, text.indexOf('\n'))) as Bucket }
}

async function fill(bucket: Bucket, files: number): Promise<void> {
  const admin = clientFor(bucket)
  await admin.makeBucket(BUCKET, 'us-east-1')
  let bytes = 0
  const t0 = performance.now()
  await pool(
    Array.from({ length: files }, (_, i) => i),
    FILL_CONCURRENCY,
    (n) => {
      const body = Buffer.from(textOf(n))
      bytes += body.byteLength
      return admin.putObject(BUCKET, keyOf(n), body)
    },
  )
  const seconds = (performance.now() - t0) / 1000
  console.log(
    `fill: ${files} files, ${(bytes / MB).toFixed(1)} MB (${(bytes / files).toFixed(0)} B average) ` +
      `in ${fmt(seconds)}, ${perSecond(files, seconds)} (${FILL_CONCURRENCY} puts at once)`,
  )
  const listed: number[] = []
  for (let i = 0; i < 2; i++) {
    const l0 = performance.now()
    for await (const _ of admin.listObjectsV2(BUCKET, PREFIX, true));
    listed.push((performance.now() - l0) / 1000)
  }
  console.log(
    `the bucket alone: a paged listing of the prefix through minio takes ${fmt(listed[0]!)} the first ` +
      `time (s3rver reads the metadata), ${fmt(listed[1]!)} once its listing is kept`,
  )
}

const phase = arg('phase')
const files = Number(arg('files') ?? 10_000)
if (phase === 's3rver') {
  cacheListings()
  const s3 = await startS3rver()
  process.on('SIGTERM', () => void s3.stop().then(() => process.exit(0)))
  console.log(JSON.stringify({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey }))
} else if (phase === 'sync') {
  await syncPhases(JSON.parse(arg('bucket')!) as Bucket, files)
} else {
  const { child, bucket } = await startBucketProcess()
  try {
    await fill(bucket, files)
    const run = Bun.spawnSync(
      [
        process.execPath,
        import.meta.path,
        '--phase=sync',
        `--files=${files}`,
        `--bucket=${JSON.stringify(bucket)}`,
      ],
      { stdout: 'inherit', stderr: 'inherit' },
    )
    if (run.exitCode !== 0) process.exitCode = 1
  } finally {
    child.kill('SIGTERM')
    await child.exited
  }
}
