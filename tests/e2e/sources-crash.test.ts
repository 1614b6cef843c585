import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { objectOf } from '../../src/platform/storage/ranges'
import { binaryObjects, type RunningBinary, signUpOn, startBinary } from '../helpers/binary'
import { filesUnder } from '../helpers/files-under'
import { storedKeys } from '../helpers/stored-objects'

// Issue 21, "a crash test": the compiled binary is killed (SIGKILL, no chance to clean up) while it
// syncs a server folder of 2,000 files, then started again on the same data dir. The sync resumes
// its run from the job the dead process left (a ten-minute lease, so only the dead-owner check can
// resume it in time) and ends with exactly 2,000 documents: none twice, none missing, no object left
// behind by the batch the kill interrupted.

const FILES = 2000
const BATCH_FILES = 25
const LEASE_SECONDS = '600'

let dir = ''
let share = ''
let server: RunningBinary | null = null

/** Deterministic prose: sentences of words drawn by a seeded generator, so every file differs. */
function prose(seed: number, words: number): string {
  const vocabulary =
    'river harbour engine ledger silver council winter orchard signal market canal quarry lantern meadow archive beacon'.split(
      ' ',
    )
  let x = seed
  const out: string[] = [`Note ${seed}.`]
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    out.push(vocabulary[x % vocabulary.length]!)
    if (i % 12 === 11) out.push('.')
  }
  return out.join(' ')
}

/** Where file `i` lives in the share: a few departments, some with a folder per year. */
function pathOf(i: number): string {
  const dept = `dept-${i % 5}`
  const leaf = i % 4 === 0 ? `note-${i}.md` : `note-${i}.txt`
  return i % 3 === 0 ? `${dept}/${2020 + (i % 4)}/${leaf}` : `${dept}/${leaf}`
}

/** Waits (polling, bounded) until `check` gives a value. */
async function until<T>(check: () => Promise<T | null> | T | null, what: string, tries = 6000): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const got = await check()
    if (got !== null) return got
    await Bun.sleep(20)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** The objects stored for a base (under its `blobs/`), wherever the pass keeps them. */
const blobs = (corpusId: string) =>
  storedKeys(binaryObjects(join(dir, 'data')), '', (k) => k.includes(`/corpora/${corpusId}/blobs/`))

/** The raw objects (not text sidecars) stored for a base. */
const rawObjects = async (corpusId: string) => (await blobs(corpusId)).filter((k) => !k.endsWith('.txt'))

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'engram-sources-crash-')))
  share = join(dir, 'share')
  for (let i = 0; i < FILES; i++) {
    const path = join(share, pathOf(i))
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, prose(i + 1, 40 + (i % 60)))
  }
})

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const start = () =>
  startBinary({
    cwd: dir,
    env: {
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_JOB_LEASE_SECONDS: LEASE_SECONDS,
      ENGRAM_LOG_LEVEL: 'info',
      // Each workspace reads its own folder; the test links the share there once it has one.
      ENGRAM_SOURCES_FOLDER_ROOTS: `*=${join(dir, 'tenants')}/{workspace_id}`,
      ENGRAM_SOURCES_BATCH_FILES: String(BATCH_FILES),
      // No grace for the orphan sweep: the leftovers it must remove were written just before the kill.
      ENGRAM_INGEST_ORPHAN_GRACE_SECONDS: '0',
    },
  })

interface Run {
  id: string
  status: string
  created: number
  updated: number
  unchanged: number
  deleted: number
  failed: number
  pending: number
  errors: unknown[]
  source_id: string | null
  job_id: string | null
}
interface Source {
  syncing: boolean
  current_run: Run | null
  last_run: Run | null
}

test('a server killed mid-sync resumes the same run after a restart and ends with exactly 2,000 documents', async () => {
  expect(filesUnder(share)).toHaveLength(FILES)
  server = await start()
  const auth = await signUpOn(server.url, 'sources-crash@example.com', 'Crash')
  const api = async <T>(path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(`${server!.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...auth, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    })
    return { status: res.status, body: (await res.json()) as T }
  }
  const me = await api<{ workspace_id: string }>('/v1/auth/me')
  mkdirSync(join(dir, 'tenants'), { recursive: true })
  symlinkSync(share, join(dir, 'tenants', me.body.workspace_id))
  const base = await api<{ id: string }>('/v1/corpora', { method: 'POST', json: { name: 'Share' } })
  expect(base.status).toBe(200)
  const corpusId = base.body.id
  const conn = await api<{ id: string }>('/v1/connections', {
    method: 'POST',
    json: { kind: 'folder', name: 'Server share' },
  })
  expect(conn.status).toBe(201)
  const created = await api<{ id: string }>(`/v1/corpora/${corpusId}/sources`, {
    method: 'POST',
    json: { connection_id: conn.body.id, folder: share },
  })
  expect(created.status).toBe(201)
  const sourcePath = `/v1/corpora/${corpusId}/sources/${created.body.id}`
  const sync = await api<Run>(`${sourcePath}/sync`, { method: 'POST' })
  expect(sync.status).toBe(202)
  const runId = sync.body.id

  // Killed once some batches are registered and the listing is far from done: wherever the kill
  // lands (a batch's files are stored together, as a pack, as it ends and before it registers them),
  // what is left is counted from the database below, not assumed.
  const midway = await until(async () => {
    const s = (await api<Source>(sourcePath)).body
    expect(s.last_run).toBeNull()
    return s.syncing && s.current_run && s.current_run.created >= 200 ? s.current_run : null
  }, 'a sync some batches in')
  server.proc.kill('SIGKILL')
  await server.proc.exited
  expect(midway).toMatchObject({ id: runId, status: 'running' })
  expect(midway.created).toBeLessThan(FILES)
  // What the dead process left: whole batches registered (each file one document, its raw key a
  // range of its batch's pack), the stored objects of the batch it was taking, which no row names,
  // and perhaps the text sidecars of documents whose extraction it was finishing (stored, its row
  // not yet written).
  const db = new Database(join(dir, 'data', 'engram.db'), { readonly: true })
  const registered = db
    .query<{ n: number }, [string]>(
      'SELECT count(*) AS n FROM documents WHERE corpus_id = ? AND parent_id IS NULL',
    )
    .get(corpusId)!.n
  const named = new Set(
    db
      .query<{ k: string }, [string, string]>(
        'SELECT raw_key AS k FROM documents WHERE corpus_id = ? UNION SELECT text_key FROM documents WHERE corpus_id = ?',
      )
      .all(corpusId, corpusId)
      .map((r) => objectOf(r.k)),
  )
  const rawKeys = db
    .query<{ k: string }, [string]>(
      'SELECT raw_key AS k FROM documents WHERE corpus_id = ? AND parent_id IS NULL',
    )
    .all(corpusId)
    .map((r) => objectOf(r.k))
  db.close()
  expect(registered % BATCH_FILES).toBe(0)
  expect(registered).toBeLessThan(FILES)
  // Every registered document's raw object is there; those no row names are the interrupted batch's.
  const onDisk = new Set(await rawObjects(corpusId))
  expect(rawKeys.filter((k) => !onDisk.has(k))).toEqual([])
  const unregistered = (await rawObjects(corpusId)).filter((k) => !named.has(k)).length
  const orphans = (await blobs(corpusId)).filter((k) => !named.has(k))

  server = await start()
  const s = server
  // Resumed by the dead-owner check at start-up, not after the ten-minute lease.
  const resumed = await until(
    () => s.lines.find((l) => l.msg === 'jobs resumed from a process that stopped') ?? null,
    'the sync job resumed',
  )
  expect(resumed.count).toBeGreaterThanOrEqual(1)
  expect(s.lines.some((l) => l.msg === 'jobs recovered after an expired lease')).toBe(false)
  // The start-up sweep removes the objects no row named, and only those (the resumed sync's own
  // objects are in flight, so spared): the unregistered batch's raw objects and the unnamed
  // sidecars, but for those the resumed extraction batch writes again at their keys meanwhile.
  const sweep = await until(() => s.lines.find((l) => l.msg === 'orphan sweep') ?? null, 'the orphan sweep')
  expect(orphans.filter((k) => !k.endsWith('.txt'))).toHaveLength(unregistered)
  expect(sweep.removed_objects).toBeGreaterThanOrEqual(unregistered)
  expect(sweep.removed_objects).toBeLessThanOrEqual(orphans.length)

  // The listing ends, then the run ends once the last document is extracted.
  const finished = await until(async () => {
    const src = (await api<Source>(sourcePath)).body
    return !src.syncing && src.last_run && src.last_run.status !== 'running' ? src.last_run : null
  }, 'the sync to finish')
  expect(finished).toMatchObject({
    id: runId,
    source_id: created.body.id,
    status: 'succeeded',
    created: FILES,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    failed: 0,
    pending: 0,
    errors: [],
  })

  // One run for the source: the one the crash interrupted.
  const runs = await api<{ items: Run[]; next_cursor: string | null }>(
    `/v1/corpora/${corpusId}/sync-runs?limit=500`,
  )
  expect(runs.body.items.map((r) => r.id)).toEqual([runId])

  // Exactly the 2,000 files, each once.
  const baseNow = await api<{ n_documents: number }>(`/v1/corpora/${corpusId}`)
  expect(baseNow.body.n_documents).toBe(FILES)
  const names: string[] = []
  let cursor: string | null = null
  do {
    const page: {
      body: { items: { filename: string; parent_id: string | null }[]; next_cursor: string | null }
    } = await api(
      `/v1/corpora/${corpusId}/documents?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    names.push(...page.body.items.filter((d) => d.parent_id === null).map((d) => d.filename))
    cursor = page.body.next_cursor
  } while (cursor)
  expect(names).toHaveLength(FILES)
  expect(names.sort()).toEqual(Array.from({ length: FILES }, (_, i) => pathOf(i)).sort())

  // No orphan: once the sweep is done, the base holds the raw objects its documents name (each
  // batch's pack: every file differs) and one text sidecar per document whose text is not its file
  // (a plain file's range serves as its text), nothing the interrupted batch stored before the kill.
  const stored = await blobs(corpusId)
  const after = new Database(join(dir, 'data', 'engram.db'), { readonly: true })
  const texts = after
    .query<{ raw_key: string; text_key: string | null }, [string]>(
      'SELECT raw_key, text_key FROM documents WHERE corpus_id = ? AND parent_id IS NULL',
    )
    .all(corpusId)
  after.close()
  expect(texts.filter((r) => r.text_key === null)).toEqual([])
  const sidecars = texts.flatMap((r) => (r.text_key !== r.raw_key ? [r.text_key!] : [])).sort()
  const packs = [...new Set(texts.map((r) => objectOf(r.raw_key)))].sort()
  expect((await rawObjects(corpusId)).sort()).toEqual(packs)
  expect(stored.filter((k) => k.endsWith('.txt')).sort()).toEqual(sidecars)
  expect(stored).toHaveLength(packs.length + sidecars.length)
}, 240_000)
