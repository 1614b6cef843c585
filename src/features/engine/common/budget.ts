import { readFileSync } from 'node:fs'
import { totalmem } from 'node:os'

const MiB = 1024 * 1024

/** Smallest and largest automatic budget of the warm caches together. */
export const AUTO_MIN_BYTES = 32 * MiB
export const AUTO_MAX_BYTES = 256 * MiB

/** Smallest and largest automatic heap size (engine.heap_mb). */
export const HEAP_MIN_BYTES = 256 * MiB
export const HEAP_MAX_BYTES = 1024 * MiB

/** Where a cgroup's memory limit is written: v2 first, then v1. */
const CGROUP_LIMITS = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']

/** A file's text, or null when it cannot be read (no such cgroup controller here). */
function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/**
 * The memory this process may use: the machine's RAM, or its cgroup's limit when that is smaller
 * (a container). `read` is the file reader (tests pass their own).
 */
export function machineMemoryBytes(
  read: (path: string) => string | null = readText,
  ram: number = totalmem(),
): number {
  let bytes = ram
  for (const path of CGROUP_LIMITS) {
    const text = read(path)?.trim()
    // "max" (v2) or a number near 2^63 (v1) mean no limit.
    if (!text || !/^\d+$/.test(text)) continue
    const limit = Number(text)
    if (limit > 0 && limit < bytes) bytes = limit
  }
  return bytes
}

/** The byte budgets of the engine's warm caches: cartridges, passage vectors, posting lists and rag's decoded passages. */
export interface WarmBudgets {
  total: number
  carts: number
  vectors: number
  postings: number
  passages: number
}

/**
 * The warm caches' budget: `configuredMb` MiB (engine.warm_cache_mb), or when it is 0 a sixteenth of
 * the machine's memory, between 32 and 256 MiB; split by splitWarmBudget.
 */
export function warmBudgets(configuredMb: number, machineBytes: number): WarmBudgets {
  const total =
    configuredMb > 0
      ? configuredMb * MiB
      : Math.min(AUTO_MAX_BYTES, Math.max(AUTO_MIN_BYTES, Math.floor(machineBytes / 16)))
  return splitWarmBudget(total)
}

/**
 * Splits a budget: three quarters to the cartridges, an eighth to posting lists, a sixteenth each to
 * passage vectors and rag's decoded passages.
 */
export function splitWarmBudget(total: number): WarmBudgets {
  const sixteenth = Math.floor(total / 16)
  return {
    total,
    carts: total - 4 * sixteenth,
    vectors: sixteenth,
    postings: 2 * sixteenth,
    passages: sixteenth,
  }
}

/**
 * The RAM size JavaScriptCore sizes its collector for (BUN_JSC_forceRAMSize): `configuredMb` MiB
 * (engine.heap_mb), or when it is 0 a sixty-fourth of the machine's memory, between 256 MiB and
 * 1 GiB. Sized from a 24 GB machine's whole RAM, the collector let garbage wait: at 100x squad-dev
 * the server's peak was 710 MB, 586 with 400 MB (bench/RESULTS.md). 192 MiB took the 1x peak 35-50
 * MB lower, but a 100x base's heap (about 300 MB) is then past the whole size and its questions
 * cost about three times the CPU (issue 38, session 23): not the default.
 */
export function heapRamBytes(configuredMb: number, machineBytes: number): number {
  if (configuredMb > 0) return configuredMb * MiB
  return Math.min(HEAP_MAX_BYTES, Math.max(HEAP_MIN_BYTES, Math.floor(machineBytes / 64)))
}
