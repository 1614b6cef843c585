import { lstat, readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import type { Static } from '@sinclair/typebox'
import { Presets, SingleBar } from 'cli-progress'
import type { SyncRunResp } from '../features/ingest/ingest.schemas'
import { parseFlags } from './args'
import { CliError } from './cli-error'

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
  --wait           Wait until the documents are processed and report failures
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
  quiet: boolean
}

interface LocalFile {
  abs: string
  path: string
  size: number
  sha256: string
}

/** Where messages go; injected so tests and the real terminal differ only here. */
export interface PushIo {
  out: (line: string) => void
  err: (line: string) => void
  /** Whether stderr is a terminal (the progress bar is drawn only then). */
  tty: boolean
  sleep: (ms: number) => Promise<void>
}

/** The environment variables push reads: the key and the server URL, so neither need be typed. */
export type PushEnv = Record<string, string | undefined>

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

/** Every regular file under `dir` (hidden files and folders and symbolic links are skipped). */
async function walk(dir: string): Promise<{ abs: string; path: string; size: number }[]> {
  const out: { abs: string; path: string; size: number }[] = []
  const visit = async (d: string) => {
    const entries = await readdir(d, { withFileTypes: true })
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue
      const abs = join(d, e.name)
      if (e.isDirectory()) await visit(abs)
      else if (e.isFile()) {
        const st = await lstat(abs)
        out.push({ abs, path: relative(dir, abs).split(sep).join('/'), size: st.size })
      }
    }
  }
  await visit(dir)
  return out
}

/** SHA-256 of a file, streamed. */
async function hashFile(abs: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256')
  const reader = Bun.file(abs).stream().getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) hasher.update(r.value)
  return hasher.digest('hex')
}

/** Runs `work` over `items` with at most `n` at once. */
async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lanes = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!)
  })
  await Promise.all(lanes)
}

/** A progress bar on a terminal, nothing elsewhere. */
function progress(io: PushIo, quiet: boolean, label: string, total: number) {
  if (!io.tty || quiet || total === 0) return { tick: (_n = 1) => {}, stop: () => {} }
  const bar = new SingleBar(
    { format: `${label.padEnd(9)} [{bar}] {value}/{total} {unit}`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  )
  bar.start(total, 0, { unit: label === 'uploading' ? 'bytes' : 'files' })
  return { tick: (n = 1) => bar.increment(n), stop: () => bar.stop() }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** `engram push`: hash, diff, upload what changed, commit, report. Returns the exit status. */
export async function push(o: PushOptions, io: PushIo): Promise<number> {
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${o.url}/v1/corpora/${encodeURIComponent(o.base)}${path}`, {
      method,
      headers: { authorization: `Bearer ${o.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const text = await res.text()
    if (!res.ok) {
      const msg = (() => {
        try {
          return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text
        } catch {
          return text
        }
      })()
      throw new CliError(`${method} ${path} failed (${res.status}): ${msg}`)
    }
    return JSON.parse(text) as T
  }
  const say = (line: string) => {
    if (!o.quiet) io.out(line)
  }

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

  const manifestOf = (list: LocalFile[]) =>
    list.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size }))
  const diff = await api<{
    new: string[]
    changed: string[]
    unchanged: string[]
    missing: string[]
    limits: { max_file_bytes: number }
  }>('POST', '/documents/diff', { files: manifestOf(files), prefix: o.prefix || undefined })
  const tooLarge = files.filter((f) => f.size > diff.limits.max_file_bytes)
  for (const f of tooLarge) io.err(`skipped ${f.path}: ${mb(f.size)} is over the server's limit per file`)
  const kept = files.filter((f) => f.size <= diff.limits.max_file_bytes)
  const toSend = new Set([...diff.new, ...diff.changed])
  const sending = kept.filter((f) => toSend.has(f.path))

  let sentBytes = 0
  let sentFiles = 0
  if (sending.length > 0) {
    const targets = await api<{
      mode: 'presigned' | 'raw'
      uploads: { path: string; upload: boolean; url: string; headers: Record<string, string> }[]
    }>('POST', '/documents/upload-urls', { files: manifestOf(sending) })
    const byPath = new Map(sending.map((f) => [f.path, f]))
    const work = targets.uploads.filter((u) => u.upload)
    const bar = progress(
      io,
      o.quiet,
      'uploading',
      work.reduce((n, u) => n + byPath.get(u.path)!.size, 0),
    )
    await pool(work, o.concurrency, async (u) => {
      const f = byPath.get(u.path)!
      const presigned = targets.mode === 'presigned'
      const url = presigned ? u.url : `${o.url}${u.url}`
      const headers = { ...u.headers, ...(presigned ? {} : { authorization: `Bearer ${o.key}` }) }
      const res = await fetch(url, { method: 'PUT', headers, body: Bun.file(f.abs) })
      if (!res.ok) throw new CliError(`upload of ${f.path} failed (${res.status}): ${await res.text()}`)
      await res.arrayBuffer()
      sentBytes += f.size
      sentFiles++
      bar.tick(f.size)
    })
    bar.stop()
  }

  let run = await api<SyncRun>('POST', '/documents/commit', {
    files: manifestOf(kept),
    delete_missing: o.delete,
    prefix: o.prefix || undefined,
  })
  say(
    `${kept.length} files: ${run.created} created, ${run.updated} updated, ${run.unchanged} unchanged, ` +
      `${run.deleted} deleted; uploaded ${sentFiles} (${mb(sentBytes)})` +
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
  while (run.status === 'running') {
    await io.sleep(500)
    run = await api<SyncRun>('GET', `/sync-runs/${run.id}`)
  }
  for (const e of run.errors) io.err(`failed ${e.path}: ${e.error}`)
  say(`sync run ${run.id}: ${run.status} (${run.failed} failed)`)
  return run.status === 'succeeded' && tooLarge.length === 0 ? 0 : 2
}

/** The sync run the server answers (its published wire shape). */
type SyncRun = Static<typeof SyncRunResp>

/**
 * Entry of `engram push ...` from main: parses, runs, prints errors, returns the exit status.
 * `env` is the process environment (ENGRAM_API_KEY, ENGRAM_URL), passed in by main.
 */
export async function pushCommand(args: string[], env: PushEnv): Promise<number> {
  const io: PushIo = {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    tty: process.stderr.isTTY === true,
    sleep: (ms) => Bun.sleep(ms),
  }
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
