// Memory of another process, read from /proc (Linux): the benches that run a server in a child
// process report that server's own resident set, not the bench's.
import { readFileSync } from 'node:fs'

/** A process's resident set now and its peak so far (VmHWM), in bytes, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024
  return { rss: kib('VmRSS'), peak: kib('VmHWM') }
}
