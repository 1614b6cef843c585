import { isIP } from 'node:net'

/** Whether an address (or the name localhost) is this machine's loopback: 127.0.0.0/8, ::1, IPv4-mapped 127.x. */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase()
  if (a === 'localhost' || a === '::1' || a === '0:0:0:0:0:0:0:1') return true
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a
  return isIP(v4) === 4 && v4.startsWith('127.')
}
