import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import { exclusiveOn, type Store } from '../../platform/db/store'
import { fail, notFound } from '../../platform/errors/errors'
import { LeaseLostError } from '../../platform/leases/held-lease'
import { LeasedQueue } from '../../platform/leases/leased-queue'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { IndexedSection } from './cart/index'
import type { SectionInput } from './engine.onboard'
import { type Changed, changed, type Prints, printsOf } from './engine.prints.repo'
import { type Publication, PublicationsRepo } from './engine.publications.repo'
import type { EngineRepo } from './engine.repo'
import { exportBase, importBase } from './engine.snapshots.repo'

/**
 * How long a write to a base's index waits for another replica's write to the same base (a group of a
 * run and its publication take seconds) before it is refused with 503 and `Retry-After` (a job tries
 * again later).
 */
const WRITE_WAIT_MS = 60_000
/**
 * How long a base's write lease lasts: a replica killed mid-write blocks the base's writes this long. A
 * write that takes longer may be taken over, and then publishes nothing (the generation it started from
 * moved): the lease orders writers, the generation fences them.
 */
const WRITE_LEASE_MS = 15_000

/** A write refused: another replica holds the base's lease, or took it over. */
const busy = () =>
  fail('service_unavailable', "Another server is writing this base's index.", undefined, {
    'retry-after': '1',
  })
/** How many times a replica reads a publication again when its file was superseded while fetched. */
const FETCH_TRIES = 3

/**
 * When a base is published whole again (a snapshot, whose files supersede the changes before it): once
 * the changes since the last snapshot add up to its size (and at least `floorBytes`), so what a base's
 * writes publish over its life stays within a few times its size (a snapshot every sixteenth generation
 * made a run's publications grow with the square of the base) and a replica without the base takes at
 * most about twice its size; or once there are `maxChanges` of them, bounding the files that replica
 * fetches one by one.
 */
export interface SnapshotPolicy {
  maxChanges: number
  floorBytes: number
}
const SNAPSHOTS: SnapshotPolicy = { maxChanges: 128, floorBytes: 1024 * 1024 }

/** What a shared index needs: the features' store, the object store, time, and a folder for its files. */
export interface SharedIndexDeps {
  store: Store
  objects: Pick<ObjectStore, 'getBytes' | 'put' | 'delete'>
  clock: Clock
  random: Random
  /** A folder of this process's own (the data dir) for the files being written or read. */
  dir: string
  /** Called once a base's rows were taken from a published file, with the ids of the sections replaced. */
  replaced?: (baseId: string, sectionIds: string[]) => void
  /** When a base is published whole again (default: SNAPSHOTS; tests set their own). */
  snapshots?: SnapshotPolicy
}

/**
 * One index for every replica (docs/scale-out.md, "The passage index across replicas"): each replica
 * keeps its own copy of a base's rows in its SQLite file, and the base's current generation is a
 * published snapshot (engine.snapshots.repo.ts) in the object store, named by a row every replica reads
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
  /** The prints of each base's rows as last published or taken: what a write changed is told from them. */
  private readonly prints = new Map<string, Prints>()
  /** Fetches in flight, one per base. */
  private readonly taking = new Map<string, Promise<void>>()
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
    this.writes = new LeasedQueue('engine.base', {
      ...d,
      busy,
      waitMs: WRITE_WAIT_MS,
      leaseMs: WRITE_LEASE_MS,
    })
    // A base this replica holds, published anew by another: taken now, not by its next question.
    this.publications.heard((baseId) => {
      if (this.applied.has(baseId)) void this.ensure(baseId).catch(() => {})
    })
  }

  /** The generation a base's local rows are at (undefined: none known yet). */
  at(baseId: string): number | undefined {
    return this.applied.get(baseId)
  }

  /**
   * Brings the base's local rows to its current publication (a base never published is left as it is):
   * the changes after the generation they are at, or, when they are at none or one before the last
   * snapshot, that snapshot and the changes after it. One fetch per base at a time.
   */
  async ensure(baseId: string): Promise<Publication | null> {
    for (let tries = 1; ; tries++) {
      const current = await this.publications.current(baseId)
      // A base this replica held a publication of has none now: it was deleted (by another replica,
      // whose commit this one's memo of the base's row may not have heard yet).
      if (!current && this.applied.has(baseId)) {
        this.forget(baseId)
        throw notFound('Document base')
      }
      if (!current || this.applied.get(baseId) === current.generation) return current
      const inFlight = this.taking.get(baseId)
      if (inFlight) {
        await inFlight.catch(() => {})
        continue
      }
      const taking = this.take(baseId, current).finally(() => this.taking.delete(baseId))
      this.taking.set(baseId, taking)
      // A file superseded while fetched (a snapshot published meanwhile): the publication read again.
      const taken = await taking.then(
        () => true,
        (e) => {
          if (tries >= FETCH_TRIES) throw e
          return false
        },
      )
      if (taken) return current
    }
  }

  /**
   * Runs `work` (writes to the base's local rows) under the base's lease, on its rows brought to the
   * current publication, then publishes the sections it touched as the next generation. `workspaceId`
   * names the first publication's folder (later ones keep the row's). Work that fails leaves the local
   * rows to be taken again. `erase` (a deletion): published as a whole snapshot, so the files holding
   * what was removed (the snapshot before, the changes) are deleted before the write returns.
   */
  write<T>(
    baseId: string,
    workspaceId: string | null,
    work: () => Promise<T>,
    { erase = false }: { erase?: boolean } = {},
  ): Promise<T> {
    return this.writes.run(baseId, async (lease) => {
      const from = await this.ensure(baseId)
      let result: T
      try {
        result = await work()
        await lease.keep()
      } catch (e) {
        this.forget(baseId)
        throw e instanceof LeaseLostError ? busy() : e
      }
      // What the work changed, from the prints of what was last published or taken (none known: all).
      const after = printsOf(this.repo.client, baseId)
      const before = this.prints.get(baseId)
      const change = before ? changed(before, after) : null
      // Work that wrote nothing (a step with nothing left to do) publishes nothing.
      const ws = from?.workspaceId ?? workspaceId
      if (ws && change?.touched.length !== 0) await this.publish(baseId, ws, from, { change, after, erase })
      return result
    })
  }

  /** Forgets what this replica knows of a base's local rows: they are taken again at their next use. */
  private forget(baseId: string): void {
    this.applied.delete(baseId)
    this.prints.delete(baseId)
  }

  /** Forgets a deleted base's publication and its files. */
  async remove(baseId: string): Promise<void> {
    this.forget(baseId)
    for (const key of await this.publications.remove(baseId)) await this.d.objects.delete(key)
  }

  /**
   * Publishes the base's next generation: a change with the changed sections' rows, or a whole snapshot
   * when it is the first, erases, what changed is not known, or the changes since the last snapshot are
   * due one (SnapshotPolicy; the snapshot's files then supersede theirs). `after`: the prints published.
   */
  private async publish(
    baseId: string,
    workspaceId: string,
    from: Publication | null,
    { change, after, erase }: { change: Changed | null; after: Prints; erase: boolean },
  ): Promise<void> {
    const generation = (from?.generation ?? 0) + 1
    const whole = erase || !from || !change || (await this.snapshotDue(from))
    const name = `${generation}-${newId(this.d.random, 'gen')}${whole ? '' : '.change'}`
    const path = join(this.d.dir, `publish-${name}.sqlite`)
    try {
      const client = this.repo.client
      await exclusiveOn(client, () => exportBase(client, baseId, path, whole ? undefined : change))
      const bytes = await Bun.file(path).bytes()
      const objectKey = `${workspaceId}/index/${baseId}/${name}.sqlite`
      await this.d.objects.put(objectKey, bytes)
      const next = { baseId, workspaceId, objectKey, bytes: bytes.byteLength, owner: this.owner }
      const published = { ...next, publishedAt: this.d.clock.now().getTime() }
      const superseded = whole
        ? await this.publications.publishSnapshot(from, published)
        : (await this.publications.publishChange(from!, published))
          ? []
          : null
      if (!superseded) {
        this.forget(baseId)
        await this.d.objects.delete(objectKey)
        throw fail('service_unavailable', "Another server published this base's index first.", undefined, {
          'retry-after': '1',
        })
      }
      this.applied.set(baseId, generation)
      this.prints.set(baseId, after)
      // Files a snapshot covers: a replica fetching one now finds it gone and reads the publication again.
      for (const key of superseded) await this.d.objects.delete(key)
    } finally {
      rmSync(path, { force: true })
    }
  }

  /** Whether the changes published since the base's last snapshot are due a whole one (SnapshotPolicy). */
  private async snapshotDue(head: Publication): Promise<boolean> {
    const { maxChanges, floorBytes } = this.d.snapshots ?? SNAPSHOTS
    const since = await this.publications.changesSince(head.baseId)
    return since.count >= maxChanges || since.bytes >= Math.max(head.bytes, floorBytes)
  }

  /** Takes the snapshot (when needed) and the changes after it into the local rows. */
  private async take(baseId: string, current: Publication): Promise<void> {
    const at = this.applied.get(baseId)
    let applied = at ?? -1
    if (at === undefined || at < current.snapshotGeneration || at > current.generation) {
      await this.takeFile(baseId, current.objectKey, true)
      applied = current.snapshotGeneration
      this.applied.set(baseId, applied)
    }
    for (const change of await this.publications.changesAfter(baseId, applied)) {
      if (change.generation !== applied + 1) throw new Error(`a change of base ${baseId} is missing`)
      await this.takeFile(baseId, change.objectKey, false)
      applied = change.generation
      this.applied.set(baseId, applied)
    }
    this.prints.set(baseId, printsOf(this.repo.client, baseId))
  }

  private async takeFile(baseId: string, objectKey: string, whole: boolean): Promise<void> {
    const bytes = await this.d.objects.getBytes(objectKey)
    if (!bytes) throw new Error(`the published index of base ${baseId} was superseded while fetched`)
    const path = join(this.d.dir, `take-${newId(this.d.random, 'gen')}.sqlite`)
    try {
      await Bun.write(path, bytes)
      const replaced = await exclusiveOn(this.repo.client, () => importBase(this.repo, baseId, path, whole))
      this.d.replaced?.(baseId, replaced)
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
