// The JavaScript collector's heap size (engine.heap_mb). JavaScriptCore reads the RAM size it sizes
// its collector for once, at start-up, from BUN_JSC_forceRAMSize, and without it takes all of the
// machine's RAM (on 24 GB, garbage waited until a 100x base's server peaked at 710 MB). A server
// started without the variable starts itself again with it set: the same process (execve keeps the
// pid, the arguments and the rest of the environment), before anything is opened.
import { heapRamBytes, machineMemoryBytes } from '../features/engine/common/index'
import type { Config } from '../platform/config/config.load'

/** The variable JavaScriptCore's RAM size is read from (Bun passes BUN_JSC_* on as JSC options). */
export const HEAP_VARIABLE = 'BUN_JSC_forceRAMSize'
/** The variable its growth of a heap under 80% of that size is read from (between collections). */
export const GROWTH_VARIABLE = 'BUN_JSC_smallHeapGrowthFactor'
/**
 * That growth, set with the RAM size: JavaScriptCore lets such a heap double before it collects
 * again, and garbage waited. By 30%, the bench's 1x server peaked at 238-241 MB against 266-273, a
 * 100x one at 284 against 380; the compile thread collects more often too, and a deferred build
 * takes longer (5,000 small files: 14-17 s against 12; issue 38, session 43).
 */
export const HEAP_GROWTH = '1.3'
/** The variable of the young generation's least share of the heap (JavaScriptCore's 1/3). */
export const EDEN_RATIO_VARIABLE = 'BUN_JSC_minEdenToOldGenerationRatio'

/**
 * That share for a heap's growth: JavaScriptCore collects the whole heap, not only its young
 * objects, once the room left for them falls below a third of the heap, and a heap that grows by
 * less than half has less than that from the start (30%: 0.3 / 1.3), so every young collection was
 * followed by a full one, pausing the event loop 12-23 ms against 3-4 (issue 38, session 47). Set
 * to the room over the heap grown by its growth and 5% more (0.3 / 1.35), a full collection waits
 * until what the young collections kept has grown the heap by that 5%. JavaScriptCore's own third
 * is the most, and stands for a growth that is not a number above 1.
 */
export function edenRatio(growth: number): string {
  if (!(growth > 1)) return String(1 / 3)
  return String(Math.min(1 / 3, (growth - 1) / (growth + 0.05)))
}

/** How the process is started again (process.execve), and what it was started with. */
export interface Restart {
  execve: (file: string, args: string[], env: Record<string, string | undefined>) => void
  execPath: string
  /** process.argv: in the compiled executable, bun's name and the embedded script's path first. */
  argv: string[]
  /** process.execArgv: bun's own flags before the script (from source). */
  execArgv: string[]
}

/**
 * The command line that starts this program again: the executable with its arguments, or, from
 * source, bun with its flags, the script and its arguments.
 */
export function restartCommand(r: Omit<Restart, 'execve'>): string[] {
  const compiled = r.argv[1]?.startsWith('/$bunfs/') ?? false
  return compiled ? [r.execPath, ...r.argv.slice(2)] : [r.execPath, ...r.execArgv, ...r.argv.slice(1)]
}

/**
 * Starts the process again with BUN_JSC_forceRAMSize set from `engine.heap_mb` when it is not set
 * (an operator's own value stands), the heap's growth (HEAP_GROWTH, unless the operator set one)
 * and the young generation's share that goes with it (`edenRatio`, unless the operator set one);
 * returns when it is set, or when the restart is not possible.
 */
export function sizeHeap(
  config: Config['engine'],
  env: Record<string, string | undefined> = process.env,
  restart: Restart = {
    execve: (file, args, e) => process.execve?.(file, args, e),
    execPath: process.execPath,
    argv: process.argv,
    execArgv: process.execArgv,
  },
  machineBytes: () => number = machineMemoryBytes,
): void {
  if (env[HEAP_VARIABLE]) return
  const bytes = heapRamBytes(config.heap_mb, machineBytes())
  const [file, ...args] = restartCommand(restart)
  try {
    const growth = env[GROWTH_VARIABLE] ?? HEAP_GROWTH
    restart.execve(file!, [file!, ...args], {
      ...env,
      [HEAP_VARIABLE]: String(bytes),
      [GROWTH_VARIABLE]: growth,
      [EDEN_RATIO_VARIABLE]: env[EDEN_RATIO_VARIABLE] ?? edenRatio(Number(growth)),
    })
  } catch {
    // Not restarted (no execve here): the collector sizes from the machine, as before.
  }
}
