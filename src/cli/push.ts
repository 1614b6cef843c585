import type { Static } from '@sinclair/typebox'
// Paths and server messages are printed with direction controls and invisible characters as
// `<U+202E>` markers: a terminal that lays out bidirectional text would otherwise show a file
// `x\u202Efdp.exe` as `xexe.pdf`. The console's rule, so both clients show a name the same way.
import { visibleText } from '../../web/src/lib/visible-text'
import type { SyncRunResp } from '../features/ingest/ingest.schemas'
import { type Api, baseClient } from './api'
import { parseFlags } from './args'
import { CliError } from './cli-error'
import { type CliEnv, type CliIo, terminalIo } from './io'
import { awaitAnswering } from './onboard'
import { hashFile, pool, progress, walk } from './push-local'

/** `engram push` usage. */
export const PUSH_USAGE = `Usage: engram push DIR --base ID [--url URL] [--key KEY] [options]

Syncs a folder into a document base through the push protocol: files are hashed locally, only new
and changed ones are uploaded, then the manifest is committed.

Options:
  --base ID        Document base id (cor_...)
  --url URL        Server URL, e.g. http://localhost:8080 (default: ENGRAM_URL)
  --key KEY        API key with the ingest scope (ek_...); better passed as ENGRAM_API_KEY, so it
                   stays out of shell history and process listings
  --delete         Delete the documents push wrote that are gone from the folder (under --prefix);
                   files uploaded by hand or upserted are never deleted
  --prefix P       Push the folder as the sub-folder P of the base
  --concurrency N  Parallel uploads (default 4)
  --wait           Wait until the new and changed documents answer questions (extracted, then
                   onboarded by the base itself), and report the ones that failed
  --onboard        Start onboarding after the commit when the base does not onboard new documents
                   by itself (a base never onboarded, or with auto_onboard off)
  --quiet          Print only errors`

interface PushOptions {
  dir: string
  base: string
  url: string
  key: string
  delete: boolean
  prefix: string
  concurrency: number
  wait: boolean
  onboard: boolean
  quiet: boolean
}

interface LocalFile {
  abs: string
  path: string
  size: number
  sha256: string
}

/** Where messages go; injected so tests and the real terminal differ only here. */
export type PushIo = CliIo

/** The environment variables push reads: the key and the server URL, so neither need be typed. */
export type PushEnv = CliEnv

/** `engram push` flags (its one positional argument is the folder). */
const PUSH_FLAGS = {
  options: {
    base: { type: 'string' },
    url: { type: 'string' },
    key: { type: 'string' },
    prefix: { type: 'string' },
    concurrency: { type: 'string' },
    delete: { type: 'boolean', default: false },
    wait: { type: 'boolean', default: false },
    onboard: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
  positionals: 1,
} as const

/** Parses `engram push` arguments; --key and --url fall back to ENGRAM_API_KEY and ENGRAM_URL. */
export function parsePushArgs(args: string[], env: PushEnv = {}): PushOptions {
  const { values: v, positionals } = parseFlags(args, PUSH_FLAGS, PUSH_USAGE, 1)
  const o: Partial<PushOptions> = {
    dir: positionals[0],
    base: v.base,
    url: v.url?.replace(/\/+$/, ''),
    key: v.key,
    prefix: v.prefix ?? '',
    concurrency: Math.max(1, Math.min(32, Number(v.concurrency) || 4)),
    delete: v.delete,
    wait: v.wait,
    onboard: v.onboard,
    quiet: v.quiet,
  }
  o.key ??= env.ENGRAM_API_KEY || undefined
  o.url ??= env.ENGRAM_URL?.replace(/\/+$/, '') || undefined
  const missing = (['dir', 'base', 'url', 'key'] as const).filter((k) => !o[k])
  if (missing.length > 0) {
    const hint: Partial<Record<string, string>> = {
      url: 'url (or ENGRAM_URL)',
      key: 'key (or ENGRAM_API_KEY)',
    }
    const names = missing.map((k) => hint[k] ?? k)
    throw new CliError(`Missing ${names.join(', ')}\n\n${PUSH_USAGE}`)
  }
  return o as PushOptions
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** The folder's files with their paths in the base (under --prefix) and their SHA-256. */
async function hashFolder(o: PushOptions, io: PushIo): Promise<LocalFile[]> {
  const found = await walk(o.dir).catch((e: Error) => {
    throw new CliError(`Cannot read ${o.dir}: ${e.message}`)
  })
  const prefix = o.prefix ? `${o.prefix.replace(/^\/+|\/+$/g, '')}/` : ''
  const hashing = progress(io, o.quiet, 'hashing', found.length)
  const files: LocalFile[] = []
  for (const f of found) {
    files.push({ ...f, path: prefix + f.path, sha256: await hashFile(f.abs) })
    hashing.tick()
  }
  hashing.stop()
  return files
}

const manifestOf = (list: LocalFile[]) => list.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size }))

/**
 * Files asked about per upload-urls request: well under any server's manifest limit, and each
 * chunk's URLs are asked for just before its files go (a presigned URL lives an hour; a large
 * folder takes longer to send).
 */
const UPLOAD_URLS_CHUNK = 1000

/** Sends the content the server asks for, `o.concurrency` files at once; returns what was sent. */
async function uploadChanged(
  o: PushOptions,
  io: PushIo,
  api: Api,
  sending: LocalFile[],
): Promise<{ files: number; bytes: number }> {
  const sent = { files: 0, bytes: 0 }
  if (sending.length === 0) return sent
  const bar = progress(
    io,
    o.quiet,
    'uploading',
    sending.reduce((n, f) => n + f.size, 0),
  )
  for (let at = 0; at < sending.length; at += UPLOAD_URLS_CHUNK) {
    const chunk = sending.slice(at, at + UPLOAD_URLS_CHUNK)
    const targets = await api<{
      mode: 'presigned' | 'raw'
      uploads: { path: string; upload: boolean; url: string; headers: Record<string, string> }[]
    }>('POST', '/documents/upload-urls', { files: manifestOf(chunk) })
    const byPath = new Map(chunk.map((f) => [f.path, f]))
    // Content the server already holds need not travel: it counts as done at once.
    for (const u of targets.uploads) if (!u.upload) bar.tick(byPath.get(u.path)!.size)
    await pool(
      targets.uploads.filter((u) => u.upload),
      o.concurrency,
      async (u) => {
        const f = byPath.get(u.path)!
        const presigned = targets.mode === 'presigned'
        const url = presigned ? u.url : `${o.url}${u.url}`
        const headers = { ...u.headers, ...(presigned ? {} : { authorization: `Bearer ${o.key}` }) }
        const res = await fetch(url, { method: 'PUT', headers, body: Bun.file(f.abs) })
        if (!res.ok) {
          throw new CliError(
            `upload of ${visibleText(f.path)} failed (${res.status}): ${visibleText(await res.text())}`,
          )
        }
        await res.arrayBuffer()
        sent.bytes += f.size
        sent.files++
        bar.tick(f.size)
      },
    )
  }
  bar.stop()
  return sent
}

/**
 * `engram push`: hash, diff, upload what changed, commit, report; with --wait, until the new and
 * changed documents answer (or failed). Returns the exit status.
 */
export async function push(o: PushOptions, io: PushIo): Promise<number> {
  const api = baseClient(o.url, o.key, o.base)
  const say = (line: string) => {
    if (!o.quiet) io.out(line)
  }
  const files = await hashFolder(o, io)
  const diff = await api<{
    new: string[]
    changed: string[]
    unchanged: string[]
    missing: string[]
    limits: { max_file_bytes: number }
  }>('POST', '/documents/diff', { files: manifestOf(files), prefix: o.prefix || undefined })
  const tooLarge = files.filter((f) => f.size > diff.limits.max_file_bytes)
  for (const f of tooLarge)
    io.err(`skipped ${visibleText(f.path)}: ${mb(f.size)} is over the server's limit per file`)
  const kept = files.filter((f) => f.size <= diff.limits.max_file_bytes)
  const toSend = new Set([...diff.new, ...diff.changed])
  const sent = await uploadChanged(
    o,
    io,
    api,
    kept.filter((f) => toSend.has(f.path)),
  )

  const run = await api<SyncRun>('POST', '/documents/commit', {
    files: manifestOf(kept),
    delete_missing: o.delete,
    prefix: o.prefix || undefined,
  })
  say(
    `${kept.length} files: ${run.created} created, ${run.updated} updated, ${run.unchanged} unchanged, ` +
      `${run.deleted} deleted; uploaded ${sent.files} (${mb(sent.bytes)})` +
      (!o.delete && diff.missing.length > 0
        ? `; ${diff.missing.length} in the base only (use --delete)`
        : ''),
  )
  if (!o.wait) {
    say(
      `sync run ${run.id}: ${run.status}${run.pending ? ` (${run.pending} documents being processed)` : ''}`,
    )
    return tooLarge.length > 0 ? 2 : 0
  }
  const done = await waitForRun(io, api, run)
  say(`sync run ${done.id}: ${done.status} (${done.failed} failed)`)
  let ok = done.status === 'succeeded' && tooLarge.length === 0
  // Extracted is not yet answerable: the documents answer once onboarded, by the base itself
  // (auto_onboard) or by the run --onboard starts.
  if (done.created + done.updated > 0) {
    const paths = new Set(kept.filter((f) => toSend.has(f.path)).map((f) => f.path))
    const reported = new Set(done.errors.map((e) => e.path))
    const answering = await awaitAnswering(api, io, {
      base: o.base,
      paths,
      reported,
      start: o.onboard,
      quiet: o.quiet,
    })
    ok = answering && ok
  }
  return ok ? 0 : 2
}

/** Polls a sync run until it ends, then lists its failures on stderr. */
async function waitForRun(io: PushIo, api: Api, started: SyncRun): Promise<SyncRun> {
  let run = started
  while (run.status === 'running') {
    await io.sleep(500)
    run = await api<SyncRun>('GET', `/sync-runs/${run.id}`)
  }
  for (const e of run.errors) io.err(`failed ${visibleText(e.path)}: ${visibleText(e.error)}`)
  return run
}

/** The sync run the server answers (its published wire shape). */
type SyncRun = Static<typeof SyncRunResp>

/**
 * Entry of `engram push ...` from main: parses, runs, prints errors, returns the exit status.
 * `env` is the process environment (ENGRAM_API_KEY, ENGRAM_URL), passed in by main.
 */
export async function pushCommand(args: string[], env: PushEnv): Promise<number> {
  const io = terminalIo()
  try {
    if (args.includes('--help') || args.includes('-h')) {
      io.out(PUSH_USAGE)
      return 0
    }
    return await push(parsePushArgs(args, env), io)
  } catch (e) {
    if (e instanceof CliError) {
      io.err(`engram push: ${e.message}`)
      return e.exitCode
    }
    io.err(`engram push: ${(e as Error).message}`)
    return 1
  }
}
