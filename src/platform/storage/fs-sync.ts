// File-system helpers of the local object store: whole writes and the flushes that make them durable.
import { type FileHandle, open } from 'node:fs/promises'

const isMissing = (e: unknown) =>
  ['ENOENT', 'ENOTDIR', 'EISDIR'].includes((e as NodeJS.ErrnoException | undefined)?.code ?? '')

/** Writes the whole chunk; a file write may in principle be short. */
export async function writeFully(fh: FileHandle, chunk: Uint8Array): Promise<void> {
  let at = 0
  while (at < chunk.byteLength) {
    const { bytesWritten } = await fh.write(chunk, at, chunk.byteLength - at)
    at += bytesWritten
  }
}

/** How many flushes `sync` keeps in flight at once. */
export const SYNC_PARALLEL = 16

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function inParallel<T>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

/** Flushes a file's data to disk; an absent file (deleted meanwhile) is no work. */
export async function fsyncFile(path: string): Promise<void> {
  const fh = await open(path, 'r').catch((e) => {
    if (isMissing(e)) return null
    throw e
  })
  if (!fh) return
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Makes a rename in `dir` durable; directories cannot be fsynced on every platform, hence the catch. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => null)
  if (!fh) return
  await fh.sync().catch(() => {})
  await fh.close()
}
