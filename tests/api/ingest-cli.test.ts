import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { auditRows } from './accounts.fixture'
import { createBase, ingestSetup, listDocs, upload } from './ingest.fixture'

// `engram push` end to end: the real CLI in a child process against the app served on loopback.
// Each test starts several Bun processes; the time caps leave room for a loaded machine.
const ROOT = resolve(import.meta.dir, '../..')
let f: Awaited<ReturnType<typeof ingestSetup>>
let server: ReturnType<typeof Bun.serve>
let url = ''
const dirs: string[] = []

beforeAll(async () => {
  f = await ingestSetup()
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => f.t.handle(req) })
  url = `http://127.0.0.1:${server.port}`
  // The scheduler runs for real here, so `--wait` sees the extraction finish.
  f.t.jobs.scheduler.start()
})

afterAll(async () => {
  await f.t.jobs.scheduler.stop()
  server.stop(true)
  f.t.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A folder with the given files (paths relative to it). */
function folder(files: Record<string, string | Uint8Array>): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-push-'))
  dirs.push(dir)
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true })
    writeFileSync(join(dir, p), content)
  }
  return dir
}

/** A base's onboarding (train) jobs and whether the base started each by itself (payload's `auto`). */
async function trainRuns(base: string): Promise<{ id: string; auto: unknown }[]> {
  const rows = await f.t.sql.all<{ id: string; payload: string }>(
    "SELECT id, payload FROM jobs WHERE kind = 'train' AND subject_id = ?",
    base,
  )
  return rows.map((r) => ({ id: r.id, auto: (JSON.parse(r.payload) as { auto?: unknown }).auto }))
}

/** Runs `engram push` (with the given environment) and returns its exit status and output. */
function push(args: string[], env: Record<string, string> = {}) {
  return engram(['push', ...args], env)
}

/** Runs an `engram` command (with the given environment) and returns its exit status and output. */
async function engram(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, 'run', 'src/main.ts', ...args], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: Bun.env.PATH ?? '', ...env },
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, out, err }
}

describe('engram push', () => {
  test('syncs a folder: first everything, then only what changed, deleting only with --delete', async () => {
    const base = await createBase(f.t, f.token)
    const dir = folder({
      'a.txt': 'Alpha: the first file.',
      'sub/b.md': '# Bravo\n\nThe second file.',
      'c.csv': 'name,qty\nbolts,12\n',
      '.hidden/secret.txt': 'never pushed',
      '.DS_Store': 'junk',
    })
    const args = (...extra: string[]) => [dir, '--base', base, '--url', url, '--key', f.ingestKey, ...extra]

    const first = await push(args('--wait'))
    expect(first.err).toBe('')
    expect(first.code).toBe(0)
    expect(first.out).toContain('3 files: 3 created, 0 updated, 0 unchanged, 0 deleted; uploaded 3 (0.0 MB)')
    expect(first.out).toMatch(/sync run run_\w+: succeeded \(0 failed\)/)
    const docs = await listDocs(f.t, f.token, base)
    expect(docs.map((d) => [d.filename, d.source]).sort()).toEqual([
      ['a.txt', 'push'],
      ['c.csv', 'push'],
      ['sub/b.md', 'push'],
    ])

    const again = await push(args())
    expect(again.code).toBe(0)
    expect(again.out).toContain('3 files: 0 created, 0 updated, 3 unchanged, 0 deleted; uploaded 0 (0.0 MB)')

    writeFileSync(join(dir, 'a.txt'), 'Alpha: the first file, edited.')
    rmSync(join(dir, 'c.csv'))
    mkdirSync(join(dir, 'd'))
    copyFileSync(join(dir, 'sub/b.md'), join(dir, 'd/copy.md'))
    const kept = await push(args())
    expect(kept.code).toBe(0)
    // The copy's content is in the base already, so only the edited file travels.
    expect(kept.out).toContain(
      '3 files: 1 created, 1 updated, 1 unchanged, 0 deleted; uploaded 1 (0.0 MB); 1 in the base only (use --delete)',
    )
    expect((await listDocs(f.t, f.token, base)).map((d) => d.filename).sort()).toEqual([
      'a.txt',
      'c.csv',
      'd/copy.md',
      'sub/b.md',
    ])
    const deleted = await push(args('--delete'))
    expect(deleted.out).toContain(
      '3 files: 0 created, 0 updated, 3 unchanged, 1 deleted; uploaded 0 (0.0 MB)',
    )
    const after = await listDocs(f.t, f.token, base)
    expect(after.map((d) => d.filename).sort()).toEqual(['a.txt', 'd/copy.md', 'sub/b.md'])
    expect(after.find((d) => d.filename === 'a.txt')!.id).toBe(docs.find((d) => d.filename === 'a.txt')!.id)
  }, 60_000)

  test('--delete removes files gone from the folder but never files uploaded by hand, and leaves a receipt', async () => {
    const base = await createBase(f.t, f.token)
    // The folder is pushed as the base's `notes/` folder.
    const dir = folder({ 'a.txt': 'Alpha note.', 'b.txt': 'Bravo note.' })
    const args = (...extra: string[]) => [dir, '--base', base, '--url', url, '--key', f.ingestKey, ...extra]
    expect((await push(args('--prefix', 'notes'))).code).toBe(0)
    // Someone adds a file by hand under the same folder of the base.
    const hand = await upload(f.t, f.token, base, [
      { filename: 'notes/by-hand.txt', content: 'Added in the console.' },
    ])
    expect(hand.status).toBe(200)
    rmSync(join(dir, 'b.txt'))
    const from = (await auditRows(f.t, 'document.deleted')).length
    const res = await push(args('--prefix', 'notes', '--delete'))
    expect(res.err).toBe('')
    expect(res.code).toBe(0)
    expect(res.out).toContain('1 files: 0 created, 0 updated, 1 unchanged, 1 deleted')
    expect((await listDocs(f.t, f.token, base)).map((d) => d.filename).sort()).toEqual([
      'notes/a.txt',
      'notes/by-hand.txt',
    ])
    const receipts = (await auditRows(f.t, 'document.deleted')).slice(from)
    expect(
      receipts.map((r) => [r.actor_type, JSON.parse(r.details).filename, JSON.parse(r.details).via]),
    ).toEqual([['api_key', 'notes/b.txt', 'push']])
  }, 30_000)

  test('reports documents the server could not take and exits with status 2', async () => {
    const base = await createBase(f.t, f.token)
    const jpg = readFileSync(resolve(import.meta.dir, '../unit/extract/fixtures/example.jpg'))
    const dir = folder({ 'ok.txt': 'fine', 'photo.jpg': jpg })
    const res = await push([dir, '--base', base, '--url', url, '--key', f.ingestKey, '--wait'])
    expect(res.code).toBe(2)
    expect(res.err).toContain('failed photo.jpg: Unsupported file type: JPG image (image/jpeg).')
    expect(res.out).toMatch(/sync run run_\w+: partial \(1 failed\)/)
  }, 60_000)

  test('prints a path with a direction override as it is spelled, the override as a marker', async () => {
    const base = await createBase(f.t, f.token)
    const jpg = readFileSync(resolve(import.meta.dir, '../unit/extract/fixtures/example.jpg'))
    // Laid out by a bidirectional terminal, the raw name would read "invoice-gpj.exe".
    const dir = folder({ 'invoice-\u202Eexe.jpg': jpg })
    const res = await push([dir, '--base', base, '--url', url, '--key', f.ingestKey, '--wait'])
    expect(res.code).toBe(2)
    expect(res.err).toContain(
      'failed invoice-<U+202E>exe.jpg: Unsupported file type: JPG image (image/jpeg).',
    )
    expect(res.err).not.toContain('\u202E')
    // Stored and answered as the user named it.
    expect((await listDocs(f.t, f.token, base)).map((d) => d.filename)).toEqual(['invoice-\u202Eexe.jpg'])
  }, 60_000)

  test('exits with status 1 and the server message on a refused credential or bad arguments', async () => {
    const base = await createBase(f.t, f.token)
    const dir = folder({ 'x.txt': 'x' })
    const bad = await push([dir, '--base', base, '--url', url, '--key', 'ek_not_a_key'])
    expect(bad.code).toBe(1)
    expect(bad.err).toContain('engram push: POST /documents/diff failed (401)')
    const scope = await push([dir, '--base', base, '--url', url, '--key', f.queryKey])
    expect(scope.code).toBe(1)
    expect(scope.err).toContain('API key missing required scope: ingest')
    const usage = await push([dir, '--url', url])
    expect(usage.code).toBe(1)
    expect(usage.err).toContain('Missing base, key (or ENGRAM_API_KEY)\n')
    expect(usage.err).toContain('Usage: engram push DIR --base ID [--url URL] [--key KEY]')
  }, 60_000)

  test('takes the key from ENGRAM_API_KEY and the server from ENGRAM_URL, so neither is typed', async () => {
    const base = await createBase(f.t, f.token)
    const dir = folder({ 'env.txt': 'from the environment' })
    const res = await push([dir, '--base', base], { ENGRAM_API_KEY: f.ingestKey, ENGRAM_URL: `${url}/` })
    expect(res.err).toBe('')
    expect(res.code).toBe(0)
    expect((await listDocs(f.t, f.token, base)).map((d) => d.filename)).toEqual(['env.txt'])
    // --key and --url still work, and win over the environment.
    const flags = await push([dir, '--base', base, '--url', url, '--key', f.ingestKey], {
      ENGRAM_API_KEY: 'ek_not_a_key',
      ENGRAM_URL: 'http://127.0.0.1:9',
    })
    expect(flags.err).toBe('')
    expect(flags.code).toBe(0)
    const none = await push([dir, '--base', base])
    expect(none.code).toBe(1)
    expect(none.err).toContain('Missing url (or ENGRAM_URL), key (or ENGRAM_API_KEY)\n')
  }, 60_000)
})

describe('engram push --wait and engram onboard', () => {
  // The test app's clock is a manual one: it is moved along (5x real time) while these run, so that
  // an automatic run, due 2 s after the push has been extracted, comes due.
  let ticking: ReturnType<typeof setInterval> | undefined
  beforeAll(() => {
    ticking = setInterval(() => f.t.clock.advance(500), 100)
  })
  afterAll(() => clearInterval(ticking))

  const docStatuses = async (base: string) =>
    Object.fromEntries((await listDocs(f.t, f.token, base)).map((d) => [d.filename, d.status]))

  test('engram onboard --wait onboards a base and follows the run to its end', async () => {
    const base = await createBase(f.t, f.token)
    const dir = folder({
      'oil.txt': 'The 1973 oil crisis began in October 1973.',
      'rhine.txt': 'The Rhine rises in the Alps.',
    })
    const pushed = await push([dir, '--base', base, '--url', url, '--key', f.ingestKey, '--wait'])
    expect(pushed.code).toBe(0)
    // A base never onboarded does not start by itself: push says what to run.
    expect(pushed.out).toContain(
      `2 document(s) wait for onboarding; the base answers from them once onboarded: engram onboard ${base} --wait`,
    )
    expect(await docStatuses(base)).toEqual({ 'oil.txt': 'pending', 'rhine.txt': 'pending' })
    const res = await engram(['onboard', base, '--wait'], { ENGRAM_API_KEY: f.ingestKey, ENGRAM_URL: url })
    expect(res.err).toBe('')
    expect(res.code).toBe(0)
    expect(res.out).toMatch(/onboarding run job_\w+: succeeded \(2 section\(s\) onboarded, 0 failed\)/)
    expect(res.out).toContain(`base ${base}: ready (2 ready, 0 failed)`)
    expect(await docStatuses(base)).toEqual({ 'oil.txt': 'ready', 'rhine.txt': 'ready' })
    // Nothing new: said so, status 0.
    const again = await engram(['onboard', base, '--url', url, '--key', f.ingestKey])
    expect(again.code).toBe(0)
    expect(again.out).toContain('Nothing new to onboard')
    const scope = await engram(['onboard', base, '--url', url, '--key', f.queryKey])
    expect(scope.code).toBe(1)
    expect(scope.err).toContain(
      'engram onboard: POST /train?force=false failed (403): API key missing required scope: ingest',
    )
    const usage = await engram(['onboard', '--url', url])
    expect(usage.code).toBe(1)
    expect(usage.err).toContain('Usage: engram onboard BASE')
  }, 60_000)

  test('push --wait into an onboarded base returns once the pushed documents answer, with no onboarding asked for', async () => {
    const base = await createBase(f.t, f.token)
    const dir = folder({ 'oil.txt': 'The 1973 oil crisis began in October 1973.' })
    const args = (...extra: string[]) => [dir, '--base', base, '--url', url, '--key', f.ingestKey, ...extra]
    // --onboard starts the first run of a new base.
    const first = await push(args('--wait', '--onboard'))
    expect(first.err).toBe('')
    expect(first.code).toBe(0)
    expect(first.out).toContain('onboarding: 1 ready, 0 failed')
    const firstRuns = await trainRuns(base)
    expect(firstRuns).toHaveLength(1)
    writeFileSync(join(dir, 'rhine.txt'), 'The Rhine begins in the Swiss Alps at Lake Toma.')
    writeFileSync(join(dir, 'oil.txt'), 'The 1973 oil crisis began in October 1973, with an embargo.')
    writeFileSync(join(dir, 'blank.md'), '   \n')
    const second = await push(args('--wait'))
    expect(second.out).toContain('3 files: 2 created, 1 updated, 0 unchanged, 0 deleted')
    expect(second.out).toContain('onboarding: 2 ready, 1 failed')
    // The file with no text is listed once (by the sync run), and makes the exit status 2.
    expect(second.err.match(/failed blank\.md: /g)).toHaveLength(1)
    expect(second.code).toBe(2)
    // Answering when push returned: the base onboarded them by itself.
    expect(await docStatuses(base)).toEqual({
      'blank.md': 'failed',
      'oil.txt': 'ready',
      'rhine.txt': 'ready',
    })
    // The first push's run was asked for (--onboard), the second's started by the base itself.
    const runs = await trainRuns(base)
    expect(runs.filter((r) => r.id === firstRuns[0]!.id).map((r) => r.auto)).toEqual([false])
    expect(runs.filter((r) => r.id !== firstRuns[0]!.id).map((r) => r.auto)).toEqual([true])
    const answer = await f.t.request(`/v1/corpora/${base}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.queryKey}` },
      json: { question: 'Where does the Rhine begin?' },
    })
    expect(((await answer.json()) as { answer: string }).answer).toContain('Lake Toma')
  }, 60_000)
})
