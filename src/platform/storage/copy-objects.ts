import type { ObjectStore } from './object-store'

/** What a copy of objects moved, and what the target holds of those keys after it. */
export interface CopiedObjects {
  objects: number
  bytes: number
  /** Of the copied keys, how many the target lists afterwards, and their bytes. */
  target: { objects: number; bytes: number }
}

/**
 * Copies every object of `from` into `to`, streamed one at a time (memory stays bounded whatever
 * their size), as stored: a sealed object stays sealed under the same workspace key, which the
 * copied rows carry. Then lists the target to check it holds each copied key at its size.
 */
export async function copyObjects(
  from: ObjectStore,
  to: ObjectStore,
  progress: (objects: number) => void = () => {},
): Promise<CopiedObjects> {
  const sizes = new Map<string, number>()
  let bytes = 0
  for await (const entry of from.list('')) {
    const body = await from.get(entry.key)
    if (!body) continue // deleted since it was listed
    const put = await to.put(entry.key, body, { deferSync: true })
    sizes.set(entry.key, put.size)
    bytes += put.size
    progress(sizes.size)
  }
  await to.sync([...sizes.keys()])
  const target = { objects: 0, bytes: 0 }
  for await (const entry of to.list('')) {
    if (sizes.get(entry.key) === entry.size) {
      target.objects++
      target.bytes += entry.size
    }
  }
  return { objects: sizes.size, bytes, target }
}
