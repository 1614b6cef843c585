// CPU time of processes from /proc (Linux): a process's own, and PostgreSQL's (its postmaster and
// backends), read before and after a load by the replicas bench (bench/replicas.bench.ts).
import { readdirSync, readFileSync } from 'node:fs'

/** CPU seconds a process has used so far (user + system, /proc/<pid>/stat); with `reaped`, its waited-for children's too. */
export function cpuSeconds(pid: number, reaped = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command (which may hold spaces), from the 3rd: state, ppid, ...
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0)
  return ticks / CLOCK_TICKS
}

/** The kernel's clock ticks a second (USER_HZ): 100 on Linux everywhere. */
const CLOCK_TICKS = 100

/** The parent's pid of a process, or null once it is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return null
  }
}

/** The postmaster serving `databaseUrl`'s port: the postgres process whose command line names it. */
export function postmasterOf(databaseUrl: string): number | null {
  const port = new URL(databaseUrl).port
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let cmd = ''
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ')
    } catch {
      continue
    }
    if (/\bpostgres\b/.test(cmd) && cmd.includes(`-p ${port} `)) return Number(entry)
  }
  return null
}

/**
 * CPU seconds PostgreSQL has used so far: the postmaster's own and its reaped children's, plus its
 * live children's (the backends serving each connection, its background workers).
 */
export function postgresCpuSeconds(postmaster: number): number {
  let total = cpuSeconds(postmaster, true)
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || parentOf(Number(entry)) !== postmaster) continue
    try {
      total += cpuSeconds(Number(entry))
    } catch {
      // Ended since the listing: its time is now in the postmaster's reaped figure (counted above or lost: a few ticks).
    }
  }
  return total
}
