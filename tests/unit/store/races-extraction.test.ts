import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { CorporaService, type DocumentRow } from '../../../src/features/corpora/corpora.service'
import { documents } from '../../../src/features/corpora/corpora.tables'
import { extractText } from '../../../src/features/ingest/extract/extract'
import { extractDocument } from '../../../src/features/ingest/ingest.jobs'
import { Registrar, type RegistrarDeps } from '../../../src/features/ingest/ingest.registrar'
import type { ExtractBatchPayload, ExtractPayload } from '../../../src/features/ingest/ingest.types'
import { extractBatch } from '../../../src/features/ingest/lib/extract-batch'
import type { ExtractJobDeps } from '../../../src/features/ingest/lib/extract-steps'
import { blobKey, textKeyOf } from '../../../src/features/ingest/lib/keys'
import { ManualClock } from '../../../src/platform/clock/clock'
import { sha256Hex } from '../../../src/platform/crypto/hash'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import type { JobContext } from '../../../src/platform/jobs/handler'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { memoryLogger } from '../../../src/platform/log/log'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// An extraction records its result, or fails its document, only if the document still has the raw
// object the extraction read, on SQLite and on a real PostgreSQL. On PostgreSQL a job's unit reads
// the document, then another process's re-upload can commit before the unit writes; the write is
// then a conditional update on the raw key, and the job takes "no row changed" as skipped. Here the
// job is handed the row as it was read before the re-upload committed (the read that interleaving
// gives), so the same happens on both engines: nothing stale is written.

const opened: OpenStore[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const OLD = new TextEncoder().encode('The old file says the river is long.')
const NEW = new TextEncoder().encode('The new file says the river is short and cold.')

/** A job's context that never stops. */
function contextOf(payload: object): JobContext {
  const job = { payload }
  return { job, signal: new AbortController().signal, checkpoint: () => {}, progress: () => {} } as never
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`extraction against a re-upload on ${engine.name}`, () => {
    /** A base with d1 holding OLD; the row as read then; d1 given NEW since; the job's parts. */
    async function open(o: { maxExtractBytes?: number } = {}) {
      const opened1 = await engine.open()
      opened.push(opened1)
      const store: Store = opened1.store
      await seedTenants(store, {
        workspaces: ['ws_1'],
        bases: [{ id: 'cor_a', workspaceId: 'ws_1' }],
        at: T0,
      })
      const dir = mkdtempSync(join(tmpdir(), 'engram-races-'))
      dirs.push(dir)
      const clock = new ManualClock(new Date(T0))
      const random = seededRandom(1)
      const objects = new LocalObjectStore({ root: dir, clock, random })
      const events = new Outbox(store.db, clock, random, store)
      const corpora = new CorporaService({ store, clock, random, events })
      const oldKey = blobKey('ws_1', 'cor_a', 'blob_old')
      const newKey = blobKey('ws_1', 'cor_a', 'blob_new')
      await objects.put(oldKey, OLD)
      await objects.put(newKey, NEW)
      const content = (rawKey: string, bytes: Uint8Array) => ({
        size: bytes.byteLength,
        contentType: 'text/plain',
        sha256: sha256Hex(bytes),
        source: 'upload',
        managedBy: null,
        rawKey,
        now: T0,
      })
      await corpora.insertParents([
        { id: 'd1', workspaceId: 'ws_1', corpusId: 'cor_a', path: 'd1.txt', ...content(oldKey, OLD) },
      ])
      const asRead = (await corpora.document('cor_a', 'd1'))!
      await corpora.replaceContent('d1', content(newKey, NEW))
      // The job reads the document as it was before the re-upload; every write goes to the real service.
      const stale = Object.assign(Object.create(corpora) as CorporaService, {
        document: async (corpusId: string, id: string): Promise<DocumentRow | null> =>
          id === 'd1' ? asRead : corpora.document(corpusId, id),
      })
      const queue = new JobQueue(store.db, clock, random, store)
      const registrarDeps = { store, clock, random, objects, corpora: stale, queue, events, plans: {} }
      const deps: ExtractJobDeps = {
        store,
        random,
        clock,
        log: memoryLogger(),
        objects,
        corpora: stale,
        registrar: new Registrar(registrarDeps as unknown as RegistrarDeps),
        extractor: { extract: (input) => extractText(input) },
        maxExtractBytes: o.maxExtractBytes ?? 1_000_000,
      }
      const row = async () => {
        const d = store.table(documents)
        const [r] = await store.db.select().from(d).where(eq(d.id, 'd1'))
        return { rawKey: r!.rawKey, textKey: r!.textKey, status: r!.status, error: r!.error }
      }
      const failedEvents = async () => {
        const e = store.table(domainEvents)
        return (await store.db.select().from(e).where(eq(e.type, 'document.failed'))).length
      }
      const payload: ExtractPayload = {
        corpus_id: 'cor_a',
        document_id: 'd1',
        raw_key: oldKey,
        run_id: 'run_1',
        path: 'd1.txt',
      }
      return { deps, corpora, objects, asRead, oldKey, newKey, row, failedEvents, payload }
    }

    test("the old file's text is not recorded over the new file, and its sidecar goes", async () => {
      const { deps, objects, oldKey, newKey, row, payload } = await open()
      expect(await extractDocument(deps, contextOf(payload))).toEqual({ outcome: 'skipped' })
      expect(await row()).toEqual({ rawKey: newKey, textKey: null, status: 'pending', error: null })
      expect(await objects.getBytes(textKeyOf(oldKey, 'd1'))).toBeNull()
    })

    test("a batch's old text is not recorded over the new file either", async () => {
      const { deps, newKey, row, payload } = await open()
      const batch: ExtractBatchPayload = {
        corpus_id: 'cor_a',
        run_id: 'run_1',
        documents: [{ document_id: 'd1', raw_key: payload.raw_key, path: 'd1.txt' }],
      }
      expect(await extractBatch(deps, contextOf(batch))).toEqual({
        outcome: 'batch',
        items: [{ outcome: 'skipped' }],
      })
      expect(await row()).toEqual({ rawKey: newKey, textKey: null, status: 'pending', error: null })
    })

    test('the old file failing does not fail the new one, and tells nothing', async () => {
      const { deps, newKey, row, failedEvents, payload } = await open({ maxExtractBytes: 10 })
      expect(await extractDocument(deps, contextOf(payload))).toEqual({ outcome: 'skipped' })
      expect(await row()).toEqual({ rawKey: newKey, textKey: null, status: 'pending', error: null })
      expect(await failedEvents()).toBe(0)
    })

    test("corpora's records answer whether they applied: not to the old raw object, to the new one", async () => {
      const { corpora, asRead, oldKey, newKey, row, failedEvents } = await open()
      const x = {
        textKey: textKeyOf(oldKey, 'd1'),
        textChars: 10,
        textBytes: 10,
        contentType: 'text/plain',
        title: null,
        cartId: null,
        sections: [],
        pageRanges: null,
        extractorVersion: 1,
        now: T0 + 1,
      }
      expect(await corpora.setExtracted(asRead, x)).toBe(false)
      expect(await corpora.markFailed('d1', oldKey, 'unreadable', T0 + 1)).toBe(false)
      expect(await row()).toEqual({ rawKey: newKey, textKey: null, status: 'pending', error: null })
      expect(await failedEvents()).toBe(0)
      const current = (await corpora.document('cor_a', 'd1'))!
      expect(await corpora.setExtracted(current, { ...x, textKey: textKeyOf(newKey, 'd1') })).toBe(true)
      expect((await row()).textKey).toBe(textKeyOf(newKey, 'd1'))
      expect(await corpora.markFailed('d1', newKey, 'unreadable', T0 + 2)).toBe(true)
      expect(await row()).toMatchObject({ status: 'failed', error: 'unreadable' })
      expect(await failedEvents()).toBe(1)
    })
  })
}
