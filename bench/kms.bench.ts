// The cost of customer-managed keys (issue 36): the local object store plain, and behind the
// envelope with a local key and with an aws-kms key (the unchanged SDK against the stand-in KMS on
// loopback). A large streamed object (200 MB by default, `--mb=N`) put and read back, with peak
// RSS, then many small objects (`--small=N` of 4 KiB), where the per-object data key dominates:
// one GenerateDataKey per write, one Decrypt per first read (a second read finds the data key cached). Prints figures only.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AwsKeys } from '../src/features/kms/kms.aws'
import { LocalKeys } from '../src/features/kms/kms.local'
import { loadConfig } from '../src/platform/config/config.load'
import { Sealer } from '../src/platform/crypto/sealed'
import { EnvelopeStore, type Keyring } from '../src/platform/storage/envelope-store'
import { LocalObjectStore } from '../src/platform/storage/local-store'
import type { ObjectStore } from '../src/platform/storage/object-store'
import { startKmsStandin } from '../tests/helpers/kms-standin'

const MB = 1024 * 1024
const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)

/** A stream of `total` random-looking bytes in 256 KiB chunks, never held whole. */
function body(total: number): ReadableStream<Uint8Array> {
  const block = crypto.getRandomValues(new Uint8Array(256 * 1024))
  let sent = 0
  return new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (sent >= total) return c.close()
        const len = Math.min(block.byteLength, total - sent)
        const chunk = block.slice(0, len)
        new DataView(chunk.buffer).setFloat64(0, sent)
        sent += len
        c.enqueue(chunk)
      },
    },
    { highWaterMark: 0 },
  )
}

/** Runs `work` sampling RSS every 5 ms: seconds taken and the peak. */
async function measure<T>(work: () => Promise<T>) {
  let peakRss = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }, 5)
  const t0 = performance.now()
  const result = await work()
  const seconds = (performance.now() - t0) / 1000
  clearInterval(timer)
  return { result, seconds, peakRss: Math.max(peakRss, process.memoryUsage.rss()) }
}

async function large(label: string, store: ObjectStore, totalMb: number): Promise<void> {
  Bun.gc(true)
  const base = process.memoryUsage.rss()
  const put = await measure(() => store.put('ws_bench/big.bin', body(totalMb * MB)))
  const get = await measure(async () => {
    const reader = (await store.get('ws_bench/big.bin'))!.getReader()
    let n = 0
    for (let r = await reader.read(); !r.done; r = await reader.read()) n += r.value.byteLength
    return n
  })
  const mb = (b: number) => (b / MB).toFixed(0)
  console.log(
    `| ${label} | ${(totalMb / put.seconds).toFixed(0)} MB/s | +${mb(put.peakRss - base)} MB | ` +
      `${(get.result / MB / get.seconds).toFixed(0)} MB/s | +${mb(get.peakRss - base)} MB |`,
  )
  await store.delete('ws_bench/big.bin')
}

async function small(label: string, store: ObjectStore, n: number): Promise<void> {
  const payload = crypto.getRandomValues(new Uint8Array(4096))
  const put = await measure(async () => {
    for (let i = 0; i < n; i++) await store.put(`ws_bench/small/${i}`, payload)
  })
  const read = () =>
    measure(async () => {
      for (let i = 0; i < n; i++) await store.getBytes(`ws_bench/small/${i}`)
    })
  const [first, again] = [await read(), await read()]
  const rate = (s: number) => `${(n / s).toFixed(0)} /s (${((s / n) * 1000).toFixed(3)} ms)`
  console.log(`| ${label} | ${rate(put.seconds)} | ${rate(first.seconds)} | ${rate(again.seconds)} |`)
  await store.deletePrefix('ws_bench/small/')
}

/** The kms feature's providers behind a keyring without its settings table; `cache` keeps unwrapped keys. */
function keyring(
  make: () => Promise<{ plaintext: Uint8Array; wrapped: Uint8Array }>,
  open: (w: Uint8Array) => Promise<Uint8Array>,
  cache: boolean,
): Keyring {
  const held = new Map<string, Uint8Array>()
  return {
    assertReadable: async () => {},
    dataKey: async () => make(),
    unwrap: async (_ws, wrapped) => {
      const id = Buffer.from(wrapped).toString('base64')
      const hit = cache ? held.get(id) : undefined
      if (hit) return hit
      const key = await open(wrapped)
      if (cache) held.set(id, key)
      return key
    },
  }
}

const totalMb = arg('mb', 200)
const smallN = arg('small', 2000)
const dir = mkdtempSync(join(tmpdir(), 'engram-kms-bench-'))
const kms = startKmsStandin('AKIABENCH00000000000')
try {
  const config = loadConfig({
    env: {
      ENGRAM_DATA_DIR: dir,
      ENGRAM_KMS_AWS_ACCESS_KEY_ID: 'AKIABENCH00000000000',
      ENGRAM_KMS_AWS_SECRET_ACCESS_KEY: 'bench',
    },
    readFile: () => null,
  })
  const local = new LocalKeys(
    new Sealer('bench-secret-bench-secret-bench-secret-0123', 'engram/kms/local-key'),
  )
  const localKeys = local.create('ws_bench')
  const aws = new AwsKeys(config.kms)
  const ref = { keyId: kms.createKey(), endpoint: kms.url, region: null }
  const stores: [string, (cache: boolean) => ObjectStore][] = [
    ['plain (no key)', () => new LocalObjectStore({ root: join(dir, 'plain') })],
    [
      'local key',
      (cache) => {
        const s = new EnvelopeStore(new LocalObjectStore({ root: join(dir, 'local') }))
        const ws = 'ws_bench'
        s.install(
          keyring(
            async () => local.generate(ws, localKeys),
            async (w) => local.unwrap(ws, localKeys, w),
            cache,
          ),
        )
        return s
      },
    ],
    [
      'aws-kms (stand-in on loopback)',
      (cache) => {
        const s = new EnvelopeStore(new LocalObjectStore({ root: join(dir, 'aws') }))
        s.install(
          keyring(
            () => aws.generate('ws_bench', ref),
            (w) => aws.unwrap('ws_bench', ref, w),
            cache,
          ),
        )
        return s
      },
    ],
  ]
  console.log(`\nOne object of ${totalMb} MB, streamed (local disk):\n`)
  console.log('| store | put | put peak RSS | get | get peak RSS |\n| --- | --- | --- | --- | --- |')
  for (const [label, make] of stores) await large(label, make(true), totalMb)
  console.log(`\n${smallN} objects of 4 KiB, one after another (local disk):\n`)
  console.log('| store | put | first read | read again (data key cached) |\n| --- | --- | --- | --- |')
  for (const [label, make] of stores) await small(label, make(true), smallN)
  aws.close()
} finally {
  kms.stop()
  rmSync(dir, { recursive: true, force: true })
}
