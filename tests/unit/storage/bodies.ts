// Test bodies for the storage suites: deterministic generated streams and a gated stream that holds a
// write open until the test lets it finish.
import { seededRandom } from '../../../src/platform/crypto/random'
import type { ObjectEntry } from '../../../src/platform/storage/object-store'

/** A stream of `total` deterministic bytes in `chunk`-sized pieces, with its expected SHA-256. */
export function generatedBody(total: number, chunk = 64 * 1024, seed = 1) {
  const base = seededRandom(seed).bytes(chunk)
  const piece = (i: number, len: number) => {
    const out = base.slice(0, len)
    // Stamp the chunk index so a reordered or repeated chunk changes the hash.
    new DataView(out.buffer).setUint32(0, i)
    return out
  }
  const hasher = new Bun.CryptoHasher('sha256')
  for (let i = 0, at = 0; at < total; i++, at += chunk) hasher.update(piece(i, Math.min(chunk, total - at)))
  const state = { pulled: 0, cancelled: false }
  let i = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (state.pulled >= total) return c.close()
        const len = Math.min(chunk, total - state.pulled)
        c.enqueue(piece(i++, len))
        state.pulled += len
      },
      cancel() {
        state.cancelled = true
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, sha256: hasher.digest('hex'), state }
}

/** A stream that hands out `first`, then waits for `release()` before `second` and the end. */
export function gatedBody(first: Uint8Array, second: Uint8Array) {
  let signalTaken!: () => void
  const firstConsumed = new Promise<void>((r) => {
    signalTaken = r
  })
  let release!: () => void
  const gate = new Promise<void>((r) => {
    release = r
  })
  let reads = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        reads++
        if (reads === 1) return c.enqueue(first)
        // Asked for more: the writer has taken the first chunk and is mid-write.
        signalTaken()
        await gate
        c.enqueue(second)
        c.close()
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, firstConsumed, release }
}

/** SHA-256 of a whole stream, read incrementally. */
export async function streamSha256(
  stream: ReadableStream<Uint8Array>,
): Promise<{ sha256: string; size: number }> {
  const hasher = new Bun.CryptoHasher('sha256')
  let size = 0
  const reader = stream.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    hasher.update(r.value)
    size += r.value.byteLength
  }
  return { sha256: hasher.digest('hex'), size }
}

/** Collects an async iterable into an array. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** A listing's keys and sizes, in its order (the times it carries are the contract's own test). */
export async function listed(it: AsyncIterable<ObjectEntry>): Promise<{ key: string; size: number }[]> {
  return (await collect(it)).map(({ key, size }) => ({ key, size }))
}
