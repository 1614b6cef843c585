import type { ObjectStore } from '../../src/platform/storage/object-store'

/**
 * The objects stored under `prefix`, as the store itself lists them (local files or an S3 bucket),
 * sorted by key, each with its bytes as stored (a sealed object stays sealed: read from the raw
 * store, `t.deps.objects`, not through the app's envelope).
 */
export async function storedObjects(
  objects: ObjectStore,
  prefix: string,
  keep: (key: string) => boolean = () => true,
): Promise<{ key: string; bytes: Buffer }[]> {
  return Promise.all(
    (await storedKeys(objects, prefix, keep)).map(async (key) => {
      const bytes = await objects.getBytes(key)
      if (!bytes) throw new Error(`${key} was listed but cannot be read`)
      return { key, bytes: Buffer.from(bytes) }
    }),
  )
}

/** The keys of the objects stored under `prefix` that `keep` keeps, sorted. */
export async function storedKeys(
  objects: ObjectStore,
  prefix: string,
  keep: (key: string) => boolean = () => true,
): Promise<string[]> {
  const keys: string[] = []
  for await (const o of objects.list(prefix)) if (keep(o.key)) keys.push(o.key)
  return keys.sort()
}
