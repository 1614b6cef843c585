/** Number formats the console shows: durations, money, counts, sizes. */

/** Milliseconds as people read them: "12 ms", "1.25 s"; a dash when unknown. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–'
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`
}

/** US dollars with three significant digits however small (a query costs fractions of a cent). */
export function fmtUsd(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–'
  if (x === 0) return '$0'
  if (Math.abs(x) >= 1) return `$${x.toLocaleString('en-US', { maximumFractionDigits: 2 })}`
  const digits = Math.min(12, Math.max(2, Math.ceil(-Math.log10(Math.abs(x))) + 2))
  return `$${x.toFixed(digits)}`
}

/** A count with thousands separators. */
export function fmtCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  return Math.round(n).toLocaleString('en-US')
}

/** A ratio such as "2.4×". */
export function fmtRatio(x: number): string {
  return `${x >= 10 ? Math.round(x) : x.toFixed(1)}×`
}

/** A size in bytes as a person reads it: 900 B, 44 KB, 2.9 MB (powers of 1024, one decimal). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`
}

/** A duration in seconds as a person reads it: 8 s, 2 min 5 s, 1 h 3 min. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`
  const h = Math.floor(m / 60)
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`
}
