/** Number formats of the chat and compare pages. */

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
