// Object store throughput and memory: streams a large generated body (200 MB by default, `--mb=N`)
// into the local driver and into the S3 driver against s3rver, then reads it back. The S3 server
// runs in a child process so its memory is not counted. Prints figures; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalObjectStore } from '../src/platform/storage/local-store'
import type { ObjectStore } from '../src/platform/storage/object-store'
import { S3ObjectStore } from '../src/platform/storage/s3-store'

const MB = 1024 * 1024

if (process.argv[2] === '--s3rver-child') {
  // Child mode: serve S3 on a free loopback port and report it on stdout.
  const { default: S3rver } = await import('s3rver')
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.argv[3]! })
  const addr = await server.run()
  console.log(`PORT ${addr.port}`)
} else {
  await main()
}

/** A stream of `total` bytes in 256 KiB chunks, generated on the fly (never held whole). */
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

/** Runs `work` while sampling RSS every 5 ms; returns seconds taken and the peak RSS. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peakRss: number }> {
  let peakRss = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }, 5)
  const t0 = performance.now()
  const result = await work()
  const seconds = (performance.now() - t0) / 1000
  clearInterval(timer)
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
  return { result, seconds, peakRss }
}

async function bench(label: string, store: ObjectStore, totalMb: number): Promise<void> {
  Bun.gc(true)
  const baseRss = process.memoryUsage.rss()
  const put = await measure(() => store.put('ws_bench/big.bin', body(totalMb * MB)))
  const get = await measure(async () => {
    const reader = (await store.get('ws_bench/big.bin'))!.getReader()
    let n = 0
    for (let r = await reader.read(); !r.done; r = await reader.read()) n += r.value.byteLength
    return n
  })
  const mb = (b: number) => (b / MB).toFixed(0)
  console.log(
    `${label.padEnd(6)} put ${totalMb} MB: ${(totalMb / put.seconds).toFixed(0)} MB/s, peak RSS ${mb(put.peakRss)} MB ` +
      `(+${mb(put.peakRss - baseRss)} MB over ${mb(baseRss)} MB before) | ` +
      `get: ${(get.result / MB / get.seconds).toFixed(0)} MB/s, peak RSS ${mb(get.peakRss)} MB`,
  )
  await store.delete('ws_bench/big.bin')
}

async function main(): Promise<void> {
  const totalMb = Number(process.argv.find((a) => a.startsWith('--mb='))?.slice(5) ?? 200)
  const dir = mkdtempSync(join(tmpdir(), 'engram-storage-bench-'))
  const child = Bun.spawn([process.execPath, import.meta.path, '--s3rver-child', join(dir, 's3')], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  try {
    await bench('local', new LocalObjectStore({ root: join(dir, 'objects') }), totalMb)
    const reader = child.stdout.getReader()
    let out = ''
    while (!out.includes('\n')) {
      const r = await reader.read()
      if (r.done) throw new Error('s3rver child exited before reporting its port')
      out += new TextDecoder().decode(r.value)
    }
    const port = Number(/PORT (\d+)/.exec(out)?.[1])
    const s3 = new S3ObjectStore({
      endpoint: `http://127.0.0.1:${port}`,
      bucket: 'engram-bench',
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      region: 'us-east-1',
    })
    await bench('s3', s3, totalMb)
  } finally {
    child.kill()
    await child.exited
    rmSync(dir, { recursive: true, force: true })
  }
}
