import { useEffect, useState } from 'preact/hooks'

/**
 * Seconds left until `until` (a time in ms), ticking once a second while above zero; 0 once it has
 * passed. Used for cooldowns the server enforces (resend a link, Retry-After).
 */
export function useCountdown(until: number): number {
  const left = () => Math.max(0, Math.ceil((until - Date.now()) / 1000))
  const [seconds, setSeconds] = useState(left)
  useEffect(() => {
    setSeconds(left())
    if (left() === 0) return
    const timer = setInterval(() => {
      const s = left()
      setSeconds(s)
      if (s === 0) clearInterval(timer)
    }, 1000)
    return () => clearInterval(timer)
  }, [until])
  return seconds
}
