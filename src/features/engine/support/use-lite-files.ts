// The built-in encoder's model (use-lite.ts) loaded from its package's files: the manifest in
// model.json, the weight files and vocab.json (paths, which inside the compiled executable name
// its embedded files).
import { readFileSync, statSync } from 'node:fs'
import { manifestReader, UseLite, type WeightSpec } from './use-lite'

/** Where the model's files are. */
export interface UseLiteFiles {
  model: string
  vocabulary: string
  /** The weight files, in the manifest's order. */
  shards: string[]
}

export function loadUseLite(files: UseLiteFiles): UseLite {
  const { weightsManifest } = JSON.parse(readFileSync(files.model, 'utf8')) as {
    weightsManifest: { weights: WeightSpec[] }[]
  }
  const loaded = new UseLite(
    manifestReader(
      weightsManifest.flatMap((g) => g.weights),
      shardBytes(files.shards),
    ),
    JSON.parse(readFileSync(files.vocabulary, 'utf8')),
  )
  // The weight files' bytes were copied (transposed) into the model: their copies go now.
  Bun.gc(true)
  return loaded
}

/**
 * Bytes of the weight files laid end to end, read a file at a time (the last one kept): the model
 * copies each weight out, so the 28 MB of files are never all held at once. Sizes first (statSync
 * works inside the compiled executable's embedded files too).
 */
function shardBytes(paths: string[]): (offset: number, bytes: number) => Uint8Array {
  const starts: number[] = []
  let total = 0
  for (const p of paths) {
    starts.push(total)
    total += statSync(p).size
  }
  let held: { index: number; bytes: Uint8Array } | null = null
  const shard = (index: number) => {
    if (held?.index !== index) held = { index, bytes: readFileSync(paths[index]!) }
    return held.bytes
  }
  return (offset, bytes) => {
    const out = new Uint8Array(bytes)
    let done = 0
    while (done < bytes) {
      const at = offset + done
      let index = starts.length - 1
      while (starts[index]! > at) index--
      const file = shard(index)
      const from = at - starts[index]!
      const n = Math.min(bytes - done, file.byteLength - from)
      if (n <= 0) throw new Error('the encoder’s weight files are shorter than their manifest')
      out.set(file.subarray(from, from + n), done)
      done += n
    }
    return out
  }
}
