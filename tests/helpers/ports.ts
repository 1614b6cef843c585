// Loopback ports for servers a test starts and must name up front (a database, a replica, a
// redirect URI). Each probe is held until all are chosen, so the ports of one call differ; another
// process may still take one before it is used, and callers that can, try again on another.

/** `n` distinct ports free now on 127.0.0.1. */
export function freePorts(n: number): number[] {
  const probes = Array.from({ length: n }, () =>
    Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } }),
  )
  const ports = probes.map((p) => p.port)
  for (const p of probes) p.stop(true)
  return ports
}

/** A port free now on 127.0.0.1. */
export function freePort(): number {
  return freePorts(1)[0]!
}
