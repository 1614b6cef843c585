import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import { exclusiveOn, type Store } from '../../platform/db/store'
import { fail } from '../../platform/errors/errors'
import { LeasedQueue } from '../../platform/leases/leased-queue'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { IndexedSection } from './cart/index'
import type { SectionInput } from './engine.onboard'
import { type Publication, PublicationsRepo } from './engine.publications.repo'
import type { EngineRepo } from './engine.repo'
import type { SectionRow } from './engine.rows'
import { exportBase, importBase } from './engine.snapshots'

/**
 * How long a write to a base's index waits for another replica's write to the same base (a group of a
 * run and its publication take seconds) before it is refused with 503 and `Retry-After`.
 */
const WRITE_WAIT_MS = 60_000
/** How many times a replica reads a publication again when its file was superseded while fetched. */
const FETCH_TRIES = 3

/** What a shared index needs: the features' store, the object store, time, and a folder for its files. */
export interface SharedIndexDeps {
  store: Store
  objects: Pick<ObjectStore, 'getBytes' | 'put' | 'delete'>
  clock: Clock
  random: Random
  /** A folder of this process's own (the data dir) for the files being written or read. */
  dir: string
  /** Called once a base's rows were replaced from a publication, with the sections it held before. */
  replaced?: (baseId: string, before: SectionRow[]) => void
}

/**
 * One index for every replica (docs/scale-out.md, "The passage index across replicas"): each replica
 * keeps its own copy of a base's rows in its SQLite file, and the base's current generation is a
 * published snapshot (engine.snapshots.ts) in the object store, named by a row every replica reads
 * (engine.publications.repo.ts). A question brings the local copy to the current generation before it
 * answers (`ensure`), so every replica answers from the same rows; a write to a base (a run's group, a
 * deferred build's step, an encoding step, a deletion) runs under the base's named lease on the local
 * copy brought up to date, then publishes the next generation, guarded by the generation it started
 * from, before it returns (`write`). A writer that lost the race (a zombie past its lease) publishes
 * nothing and fails; its local copy is taken again from the publication at its next use.
 */
export class SharedIndex {
  /** The generation of the publication each base's local rows are (absent: unknown, taken at next use). */
  private readonly applied = new Map<string, number>()
  /** Fetches in flight, one per base. */
  private readonly taking = new Map<string, Promise<Publication | null>>()
  private readonly publications: PublicationsRepo
  private readonly writes: LeasedQueue
  /** This process's name on what it publishes. */
  private readonly owner: string

  constructor(
    private readonly repo: EngineRepo,
    private readonly d: SharedIndexDeps,
  ) {
    this.publications = new PublicationsRepo(d.store)
    this.owner = newId(d.random, 'idx')
    const busy = () =>
      fail('service_unavailable', "Another server is writing this base's index.", undefined, {
        'retry-after': '1',
      })
    this.writes = new LeasedQueue('engine.base', { ...d, busy, waitMs: WRITE_WAIT_MS })
  }

  /** Brings the base's local rows to its current publication (a base never published is left as it is). */
  async ensure(baseId: string): Promise<Publication | null> {
    for (let tries = 1; ; tries++) {
      const current = await this.publications.current(baseId)
      if (!current || this.applied.get(baseId) === current.generation) return current
      const taken = await this.take(baseId, current).catch((e) => {
        if (tries >= FETCH_TRIES) throw e
        return null
      })
      if (taken) return taken
    }
  }

  /**
   * Runs `work` (writes to the base's local rows) under the base's lease, on its rows brought to the
   * current publication, then publishes the next generation. `workspaceId` names the first publication's
   * folder (later ones keep the row's). Work that fails leaves the local rows to be taken again.
   */
  write<T>(baseId: string, workspaceId: string | null, work: () => Promise<T>): Promise<T> {
    return this.writes.run(baseId, async (lease) => {
      const from = await this.ensure(baseId)
      const changes = this.changes()
      let result: T
      try {
        result = await work()
        await lease.keep()
      } catch (e) {
        this.applied.delete(baseId)
        throw e
      }
      // Work that wrote nothing (a step with nothing left to do) publishes nothing.
      const ws = from?.workspaceId ?? workspaceId
      if (ws && this.changes() !== changes) await this.publish(baseId, ws, from)
      return result
    })
  }

  /** Rows the index's connection has written since it opened (any base's: at worst a publication too many). */
  private changes(): number {
    return (this.repo.client.query('SELECT total_changes() AS n').get() as { n: number }).n
  }

  /** Forgets a deleted base's publication and its file. */
  async remove(baseId: string): Promise<void> {
    this.applied.delete(baseId)
    const key = await this.publications.remove(baseId)
    if (key) await this.d.objects.delete(key)
  }

  private async publish(baseId: string, workspaceId: string, from: Publication | null): Promise<void> {
    const generation = (from?.generation ?? 0) + 1
    const name = `${generation}-${newId(this.d.random, 'gen')}`
    const path = join(this.d.dir, `publish-${name}.sqlite`)
    try {
      await exclusiveOn(this.repo.client, () => exportBase(this.repo.client, baseId, path))
      const bytes = await Bun.file(path).bytes()
      const objectKey = `${workspaceId}/index/${baseId}/${name}.sqlite`
      await this.d.objects.put(objectKey, bytes)
      const published = await this.publications.publish(from?.generation ?? 0, {
        baseId,
        workspaceId,
        objectKey,
        bytes: bytes.byteLength,
        publishedAt: this.d.clock.now().getTime(),
        owner: this.owner,
      })
      if (!published) {
        this.applied.delete(baseId)
        await this.d.objects.delete(objectKey)
        throw fail('service_unavailable', "Another server published this base's index first.", undefined, {
          'retry-after': '1',
        })
      }
      this.applied.set(baseId, generation)
      // The superseded file: a replica fetching it now finds it gone and reads the publication again.
      if (from) await this.d.objects.delete(from.objectKey)
    } finally {
      rmSync(path, { force: true })
    }
  }

  /** Takes a publication into the local rows, one fetch per base at a time. */
  private take(baseId: string, publication: Publication): Promise<Publication | null> {
    const inFlight = this.taking.get(baseId)
    if (inFlight) return inFlight.then(() => this.ensure(baseId))
    const taking = this.fetch(baseId, publication).finally(() => this.taking.delete(baseId))
    this.taking.set(baseId, taking)
    return taking
  }

  private async fetch(baseId: string, publication: Publication): Promise<Publication | null> {
    const bytes = await this.d.objects.getBytes(publication.objectKey)
    if (!bytes) throw new Error(`the published index of base ${baseId} was superseded while fetched`)
    const path = join(this.d.dir, `take-${newId(this.d.random, 'gen')}.sqlite`)
    try {
      await Bun.write(path, bytes)
      const before = await exclusiveOn(this.repo.client, () => importBase(this.repo, baseId, path))
      this.applied.set(baseId, publication.generation)
      this.d.replaced?.(baseId, before)
      return publication
    } finally {
      rmSync(path, { force: true })
    }
  }
}

/**
 * Indexes sections of several bases base by base (`index` given each base's inputs and their chunks),
 * the results in the inputs' order.
 */
export async function byBase<R>(
  inputs: SectionInput[],
  chunked: IndexedSection[] | undefined,
  index: (inputs: SectionInput[], chunked?: IndexedSection[]) => Promise<R[]>,
): Promise<R[]> {
  const results: R[] = new Array(inputs.length)
  for (const baseId of new Set(inputs.map((i) => i.baseId))) {
    const at = inputs.flatMap((input, i) => (input.baseId === baseId ? [i] : []))
    const out = await index(
      at.map((i) => inputs[i]!),
      chunked && at.map((i) => chunked[i]!),
    )
    at.forEach((i, j) => {
      results[i] = out[j]!
    })
  }
  return results
}
