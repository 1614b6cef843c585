import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Subprocess } from 'bun'
import { detectType } from './extract.detect.ts'
import { ExtractError, overBudgetMessage, tooSlowMessage, unreadable } from './extract.errors.ts'
import { errorOf } from './extract.pdf-worker-run.ts'
import {
  EXIT_OVER_BUDGET,
  EXTRACT_CHILD_COMMAND,
  type SandboxReply,
  type SandboxRequest,
} from './extract.sandbox-protocol.ts'
import { type ExtractOptions, extractText } from './extract.ts'
import type { DocumentKind, ExtractInput, ExtractResult } from './extract.types.ts'

// Why a child process and not a worker thread: Bun does not enforce a worker's `resourceLimits`
// (oven-sh/bun#31411) nor `--max-old-space-size`, and a thread's memory is the server's memory. A
// child's memory is its own: it can be measured (/proc/<pid>/status), killed past the budget
// and handed back to the system whole, whatever library inside it was holding on to.

/** How an `ExtractSandbox` runs. */
export interface SandboxOptions {
  /** Memory one extraction may use, in MB: the child's whole resident set, runtime included. */
  memoryMb: number
  /**
   * How long one extraction may take, in ms, before its child is killed (a file built to make a
   * parser go quadratic would otherwise hold an extraction slot for hours). No limit when unset.
   */
  timeoutMs?: number
  /** How often a busy child's memory is read, in ms. */
  pollMs?: number
  /** How long an idle child is kept for the next file before it is stopped, in ms. */
  idleMs?: number
  /** Idle children kept at most; more are stopped as soon as they finish. */
  maxIdle?: number
  /** The command that starts a child (tests); by default this runtime with the child script. */
  command?: string[]
  /** Told after each extraction the most memory its child was seen to hold, in bytes (bench). */
  onMeasured?: (peakBytes: number, filename: string) => void
  /** Told once when no child can start and files are extracted in this process instead. */
  onFallback?: (reason: string) => void
  /**
   * Plain text, Markdown, CSV and JSON files of at most this many bytes are read in this process
   * (64 KiB by default; 0: none): their readers are linear and their memory a few times their size,
   * so a child's round trip would cost more than the reading. Every other file goes to a child.
   */
  inProcessBytes?: number
  /**
   * Plain text files (`text`, the simplest reader: a decode and a cut) of at most this many bytes
   * are read in this process too; four times `inProcessBytes` by default (256 KiB: at most about
   * 50 ms and 12 MB, where a child's start alone costs about 0.03 s and 48 MB).
   */
  inProcessTextBytes?: number
}

/** Kinds whose readers need no sandbox for a small file (HTML's parser can go quadratic: a child). */
const IN_PROCESS_KINDS = new Set(['text', 'markdown', 'csv', 'json'])
/** Default of `SandboxOptions.inProcessBytes`. */
export const IN_PROCESS_BYTES = 64 * 1024

interface Child {
  proc: Subprocess
  /** The reply of the request in flight, or the `ready` awaited after start. */
  pending:
    | ((reply: SandboxReply | null, exit?: { code: number | null; signal: string | null }) => void)
    | null
  exited: boolean
  idleTimer?: ReturnType<typeof setTimeout>
}

/**
 * Extracts documents in child processes whose memory is capped: each child reads one document at
 * a time, its resident memory is read every `pollMs` and it is killed once past `memoryMb`; the
 * file then fails with `over_memory_budget` and the server's own memory is untouched. Children are
 * reused while they stay small, and stop when idle or when this process goes away.
 */
export class ExtractSandbox {
  private readonly idle: Child[] = []
  private readonly busy = new Set<Child>()
  private fallback: string | null = null
  private closed = false

  constructor(private readonly opts: SandboxOptions) {}

  /** Extracts one document within the memory budget (see `extractText` for what it returns). */
  async extract(input: ExtractInput, options: ExtractOptions = {}): Promise<ExtractResult> {
    const memoryMb = this.opts.memoryMb
    if (await this.readsHere(input)) return extractText({ ...input, memoryMb }, options)
    const child = this.fallback === null ? await this.take() : null
    if (!child) return extractText({ ...input, memoryMb }, options)
    const request: SandboxRequest = {
      type: 'extract',
      bytes: input.bytes,
      filename: input.filename,
      memoryMb,
      options,
      ...(input.contentType === undefined ? {} : { contentType: input.contentType }),
    }
    this.busy.add(child)
    let overBudget = false
    let peak = 0
    const watch = setInterval(() => {
      const rss = residentBytes(child.proc.pid)
      peak = Math.max(peak, rss)
      if (rss > memoryMb * 1024 * 1024) {
        overBudget = true
        child.proc.kill('SIGKILL')
      }
    }, this.opts.pollMs ?? 20)
    let timedOut = false
    const timeoutMs = this.opts.timeoutMs
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true
            child.proc.kill('SIGKILL')
          }, timeoutMs)
    try {
      const { reply, exit } = await new Promise<{
        reply: SandboxReply | null
        exit?: { code: number | null; signal: string | null }
      }>((resolve) => {
        child.pending = (reply, exit) => resolve(exit ? { reply, exit } : { reply })
        try {
          child.proc.send(request)
        } catch {
          // The channel closed under us (the child died between files): it answers nothing.
          child.pending = null
          child.proc.kill('SIGKILL')
          resolve({ reply: null, exit: { code: null, signal: null } })
        }
      })
      if (reply?.type === 'done') return reply.result
      if (reply?.type === 'error') throw unreadable('The file', errorOf(reply.failure))
      // The child died while reading: out of time, past the budget (ours or its own watch, or
      // the system's OOM killer), or it crashed inside a library.
      if (timedOut && !overBudget) {
        throw new ExtractError('too_slow', tooSlowMessage(Math.round((timeoutMs ?? 0) / 1000)))
      }
      if (overBudget || exit?.code === EXIT_OVER_BUDGET || exit?.signal === 'SIGKILL') {
        throw new ExtractError('over_memory_budget', overBudgetMessage(memoryMb))
      }
      throw unreadable('The file', new Error(`extraction child exited (${exit?.code ?? exit?.signal})`))
    } finally {
      clearInterval(watch)
      clearTimeout(timer)
      this.opts.onMeasured?.(Math.max(peak, residentBytes(child.proc.pid)), input.filename)
      this.busy.delete(child)
      this.release(child)
    }
  }

  /** Extracts a file now when it is small and plain enough to read in this process, else null. */
  async extractHere(input: ExtractInput, options: ExtractOptions = {}): Promise<ExtractResult | null> {
    const kind = await this.readsHere(input)
    if (!kind) return null
    return extractText({ ...input, kind, memoryMb: this.opts.memoryMb }, options)
  }

  /** The kind of a file small and plain enough to read in this process (its `kind` when given), else null. */
  private async readsHere(input: ExtractInput): Promise<DocumentKind | null> {
    const small = this.opts.inProcessBytes ?? IN_PROCESS_BYTES
    const text = this.opts.inProcessTextBytes ?? small * 4
    const size = input.bytes.byteLength
    if (size > Math.max(small, text)) return null
    let kind = input.kind
    if (!kind) {
      const detection = await detectType(input.filename, input.bytes, input.contentType)
      if (!detection.supported) return null
      kind = detection.kind
    }
    if (kind === 'text') return size <= text ? kind : null
    return size <= small && IN_PROCESS_KINDS.has(kind) ? kind : null
  }

  /** Stops every child; later extractions start new ones. */
  close(): void {
    this.closed = true
    for (const c of [...this.idle, ...this.busy]) stop(c)
    this.idle.length = 0
  }

  /** Number of child processes alive (tests). */
  get children(): number {
    return this.idle.length + this.busy.size
  }

  /** An idle child, or a new one once it says it is ready; null when none can start. */
  private async take(): Promise<Child | null> {
    this.closed = false
    let reused = this.idle.pop()
    // A child may have died while it waited (killed from outside): it is skipped.
    while (reused?.exited) {
      clearTimeout(reused.idleTimer)
      reused = this.idle.pop()
    }
    if (reused) {
      clearTimeout(reused.idleTimer)
      reused.proc.ref()
      return reused
    }
    let child: Child
    try {
      child = this.spawn()
    } catch (e) {
      return this.fellBack((e as Error)?.message ?? String(e))
    }
    const ready = await new Promise<boolean>((resolve) => {
      child.pending = (reply) => resolve(reply?.type === 'ready')
    })
    return ready ? child : this.fellBack('the extraction child process did not start')
  }

  private fellBack(reason: string): null {
    this.fallback = reason
    this.opts.onFallback?.(reason)
    return null
  }

  private spawn(): Child {
    const child: Child = { proc: undefined as unknown as Subprocess, pending: null, exited: false }
    child.proc = Bun.spawn(this.opts.command ?? childCommand(), {
      stdin: 'ignore',
      // stdout may be a protocol (engram mcp speaks on it): a child never writes there.
      stdout: 'ignore',
      stderr: 'inherit',
      serialization: 'advanced',
      ipc(message) {
        const settle = child.pending
        child.pending = null
        settle?.(message as SandboxReply)
      },
      onExit(_proc, code, signal) {
        child.exited = true
        const settle = child.pending
        child.pending = null
        settle?.(null, { code, signal: signal === null ? null : String(signal) })
      },
    })
    return child
  }

  /** Keeps a child that stayed small for the next file; stops one that grew or died. */
  private release(child: Child): void {
    const grown = residentBytes(child.proc.pid) > (this.opts.memoryMb * 1024 * 1024) / 2
    if (child.exited || grown || this.closed || this.idle.length >= (this.opts.maxIdle ?? 2)) {
      stop(child)
      return
    }
    // An idle child must not keep this process alive, nor live on long after the last file.
    child.proc.unref()
    child.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(child)
      if (i >= 0) this.idle.splice(i, 1)
      stop(child)
    }, this.opts.idleMs ?? 30_000)
    child.idleTimer.unref?.()
    this.idle.push(child)
  }
}

function stop(child: Child): void {
  clearTimeout(child.idleTimer)
  if (!child.exited) child.proc.kill('SIGKILL')
}

/** The command that starts a child: the executable itself when compiled, else this runtime and the script. */
export function childCommand(moduleUrl: string = import.meta.url): string[] {
  if (moduleUrl.includes('/$bunfs/')) return [process.execPath, EXTRACT_CHILD_COMMAND]
  return [process.execPath, fileURLToPath(new URL('./extract.sandbox-child.ts', moduleUrl))]
}

/**
 * A process's resident memory in bytes, from /proc (Linux); 0 where it cannot be read (the child
 * then relies on its own watch).
 */
export function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1')
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]
    return kb ? Number(kb) * 1024 : 0
  } catch {
    return 0
  }
}
