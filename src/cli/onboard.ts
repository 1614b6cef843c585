import type { Static } from '@sinclair/typebox'
import { visibleText } from '../../web/src/lib/visible-text'
import type { CorpusResp, DocumentResp } from '../features/corpora/corpora.schemas'
import type { JobResp } from '../features/onboarding/onboarding.schemas'
import { type Api, ApiRefusal, apiClient, baseClient } from './api'
import { parseFlags } from './args'
import { CliError } from './cli-error'
import { type CliEnv, type CliIo, terminalIo } from './io'
import { progress } from './push-local'

/** `engram onboard` usage. */
export const ONBOARD_USAGE = `Usage: engram onboard BASE [--url URL] [--key KEY] [--wait] [--force]

Starts onboarding a document base (cor_...): its new and changed documents are made answerable.
With --wait, follows the run (or the one already in flight) to its end.

Options:
  --url URL   Server URL, e.g. http://localhost:8080 (default: ENGRAM_URL)
  --key KEY   API key with the ingest scope (ek_...); better passed as ENGRAM_API_KEY
  --wait      Follow the run, with its progress, until it ends; report what failed
  --force     Onboard every document again, not only new and changed ones
  --quiet     Print only errors`

interface OnboardOptions {
  base: string
  url: string
  key: string
  wait: boolean
  force: boolean
  quiet: boolean
}

type Corpus = Static<typeof CorpusResp>
type Job = Static<typeof JobResp>
type Doc = Static<typeof DocumentResp>

/** How often a followed run or base is read. */
const POLL_MS = 500
/**
 * Polls with nothing onboarding the base (no run, no automatic run waiting) before waiting stops:
 * the server schedules an automatic run within moments of the extraction's end.
 */
const IDLE_POLLS = 10

const ONBOARD_FLAGS = {
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    wait: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
  positionals: 1,
} as const

/** Parses `engram onboard` arguments; --key and --url fall back to ENGRAM_API_KEY and ENGRAM_URL. */
export function parseOnboardArgs(args: string[], env: CliEnv = {}): OnboardOptions {
  const { values: v, positionals } = parseFlags(args, ONBOARD_FLAGS, ONBOARD_USAGE, 1)
  const o: Partial<OnboardOptions> = {
    base: positionals[0],
    url: (v.url ?? env.ENGRAM_URL)?.replace(/\/+$/, '') || undefined,
    key: v.key ?? (env.ENGRAM_API_KEY || undefined),
    wait: v.wait,
    force: v.force,
    quiet: v.quiet,
  }
  const missing = (['base', 'url', 'key'] as const).filter((k) => !o[k])
  if (missing.length > 0) {
    const hint: Partial<Record<string, string>> = {
      url: 'url (or ENGRAM_URL)',
      key: 'key (or ENGRAM_API_KEY)',
    }
    throw new CliError(`Missing ${missing.map((k) => hint[k] ?? k).join(', ')}\n\n${ONBOARD_USAGE}`)
  }
  return o as OnboardOptions
}

const isTerminal = (status: string) => status === 'succeeded' || status === 'failed' || status === 'canceled'

/** The run of the base that has not ended, or null (runs are few; batches are passed over). */
async function runInFlight(api: Api): Promise<Job | null> {
  const page = await api<{ items: Job[] }>('GET', '/jobs?kind=train&limit=5')
  return page.items.find((j) => !isTerminal(j.status)) ?? null
}

/** One line of a run's progress: "40% onboarded, about 12 s left". */
function progressWords(job: Job): string {
  const eta = job.eta_seconds === null ? '' : `, about ${Math.max(1, Math.round(job.eta_seconds))} s left`
  return `${Math.floor(job.progress * 100)}% onboarded${eta}`
}

/** Starts a run of the base; a run already in flight is answered instead; null when nothing is new. */
async function startRun(api: Api, force: boolean): Promise<Job | null> {
  try {
    return await api<Job>('POST', `/train?force=${force}`)
  } catch (e) {
    if (!(e instanceof ApiRefusal)) throw e
    if (e.code === 'nothing_to_train') return null
    if (e.code === 'training_in_progress') return runInFlight(api)
    throw e
  }
}

/**
 * Follows a run until it ends (`GET /v1/jobs/{id}` through `root`), drawing its progress on a
 * terminal and, elsewhere, a line at each quarter; returns it as it ended.
 */
async function followRun(root: Api, io: CliIo, started: Job, quiet: boolean): Promise<Job> {
  let job = started
  const bar = progress(io, quiet, 'onboarding', 100, '%')
  let shown = 0
  while (!isTerminal(job.status)) {
    await io.sleep(POLL_MS)
    job = await root<Job>('GET', `/jobs/${encodeURIComponent(job.id)}`)
    const pct = Math.floor(job.progress * 100)
    if (pct > shown) bar.tick(pct - shown)
    if (!io.tty && !quiet && !isTerminal(job.status) && Math.floor(pct / 25) > Math.floor(shown / 25)) {
      io.out(`onboarding: ${progressWords(job)}`)
    }
    shown = Math.max(shown, pct)
  }
  bar.stop()
  return job
}

/** The run's end in a line: its status and its own figures (sections onboarded and failed). */
function runLine(job: Job): string {
  return `onboarding run ${job.id}: ${job.status}${job.detail ? ` (${job.detail})` : ''}`
}

/** The base's state in a line. */
function baseLine(b: Corpus): string {
  const pending = b.documents_pending > 0 ? `, ${b.documents_pending} waiting for onboarding` : ''
  return `base ${b.id}: ${b.status} (${b.documents_ready} ready, ${b.documents_failed} failed${pending})`
}

/** `engram onboard`: starts a run, and with --wait follows it. Returns the exit status. */
export async function onboard(o: OnboardOptions, io: CliIo): Promise<number> {
  const api = baseClient(o.url, o.key, o.base)
  const say = (line: string) => {
    if (!o.quiet) io.out(line)
  }
  const run = await startRun(api, o.force)
  if (!run) {
    say('Nothing new to onboard: every document is onboarded or failed (--force onboards them all again).')
    return 0
  }
  if (!o.wait) {
    say(`onboarding run ${run.id}: ${run.status} (${run.detail ?? ''}); follow it with --wait`)
    return 0
  }
  say(`onboarding run ${run.id}: ${run.detail ?? run.status}`)
  const done = await followRun(apiClient(o.url, o.key), io, run, o.quiet)
  say(runLine(done))
  if (done.error) io.err(`run error: ${visibleText(done.error)}`)
  say(baseLine(await api<Corpus>('GET', '')))
  return done.status === 'succeeded' && done.units_failed === 0 ? 0 : 2
}

/** Every document (file) of the base, page by page. */
async function allDocuments(api: Api): Promise<Doc[]> {
  const out: Doc[] = []
  let cursor: string | null = null
  do {
    const page: { items: Doc[]; next_cursor: string | null } = await api(
      'GET',
      `/documents?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    out.push(...page.items)
    cursor = page.next_cursor
  } while (cursor)
  return out
}

/**
 * After a push: waits until its new and changed documents (`paths`) answer questions or failed.
 * A base that onboards by itself (`auto_onboard`, onboarded before) starts its run within moments;
 * any other is started here with `start` (push --onboard), or left with what to run. Waiting ends
 * once nothing of the base awaits onboarding, or once nothing is onboarding it for IDLE_POLLS polls.
 * Lists the documents that failed on stderr; true when every one of them answers.
 */
export async function awaitAnswering(
  api: Api,
  io: CliIo,
  o: {
    base: string
    paths: ReadonlySet<string>
    /** Paths whose failure was listed already (the sync run's errors): counted, not listed again. */
    reported?: ReadonlySet<string>
    start: boolean
    quiet: boolean
  },
): Promise<boolean> {
  const say = (line: string) => {
    if (!o.quiet) io.out(line)
  }
  let base = await api<Corpus>('GET', '')
  const byItself = base.auto_onboard && base.status !== 'new'
  if (!byItself) {
    if (!o.start) {
      say(
        `${base.documents_pending} document(s) wait for onboarding; the base answers from them once onboarded: ` +
          `engram onboard ${o.base} --wait (or push with --onboard)`,
      )
      return true
    }
    await startRun(api, false)
  }
  const bar = progress(io, o.quiet, 'onboarding', 100, '%')
  let shown = 0
  let idle = 0
  while (base.documents_pending + base.documents_onboarding > 0 && idle < IDLE_POLLS) {
    const run = base.status === 'training' ? await runInFlight(api) : null
    const waiting = run
      ? null
      : (await api<{ items: Job[] }>('GET', '/jobs?kind=train_auto&limit=1')).items.find(
          (j) => !isTerminal(j.status),
        )
    idle = run || waiting ? 0 : idle + 1
    if (run) {
      const pct = Math.floor(run.progress * 100)
      if (pct > shown) bar.tick(pct - shown)
      shown = pct
    }
    await io.sleep(POLL_MS)
    base = await api<Corpus>('GET', '')
  }
  bar.stop()
  const mine = (await allDocuments(api)).filter((d) => o.paths.has(d.filename))
  const failed = mine.filter((d) => d.status === 'failed')
  const waiting = mine.filter((d) => d.status === 'pending' || d.status === 'onboarding')
  for (const d of failed.filter((d) => !o.reported?.has(d.filename)))
    io.err(`failed ${visibleText(d.filename)}: ${visibleText(d.error ?? 'unknown error')}`)
  const ready = mine.length - failed.length - waiting.length
  say(
    `onboarding: ${ready} ready, ${failed.length} failed` +
      (waiting.length > 0 ? `, ${waiting.length} still waiting (engram onboard ${o.base} --wait)` : ''),
  )
  return failed.length === 0 && waiting.length === 0
}

/** Entry of `engram onboard ...` from main: parses, runs, prints errors, returns the exit status. */
export async function onboardCommand(args: string[], env: CliEnv): Promise<number> {
  const io = terminalIo()
  try {
    if (args.includes('--help') || args.includes('-h')) {
      io.out(ONBOARD_USAGE)
      return 0
    }
    return await onboard(parseOnboardArgs(args, env), io)
  } catch (e) {
    io.err(`engram onboard: ${(e as Error).message}`)
    return e instanceof CliError ? e.exitCode : 1
  }
}
