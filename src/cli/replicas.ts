import { systemClock } from '../platform/clock/clock'
import type { Config } from '../platform/config/config.load'
import { type Replica, ReplicasRepo } from '../platform/replicas/replicas.repo'
import { openStores } from './runtime'

/**
 * `engram replicas`: the processes running jobs or serving on this database, from the replicas
 * registry (docs/scale-out.md): owner, host, pid, build, when each started and when it last stamped
 * its row (every 10 s while it lives; a row not stamped for 50 s is swept by the others). On SQLite
 * it is the one process of the data dir, when it runs.
 */
export async function replicasCommand(config: Config): Promise<void> {
  const rt = await openStores(config)
  try {
    const rows = await new ReplicasRepo(rt.store, systemClock).list()
    console.log(formatReplicas(rows, systemClock.now().getTime()))
  } finally {
    await rt.close()
  }
}

/** The fleet as a table, one process a line, with how long ago each was seen. */
export function formatReplicas(rows: Replica[], now: number): string {
  if (rows.length === 0) return 'no replica is running on this database'
  const lines = [
    ['OWNER', 'HOST', 'PID', 'BUILD', 'STARTED', 'SEEN'],
    ...rows.map((r) => [
      r.owner,
      r.host,
      String(r.pid),
      r.build,
      new Date(r.startedAt).toISOString(),
      `${Math.max(0, Math.round((now - r.seenAt) / 1000))}s ago`,
    ]),
  ]
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)))
  return lines
    .map((l) =>
      l
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
