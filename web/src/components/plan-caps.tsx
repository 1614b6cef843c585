/** A plan's caps with their use: a bar each (used / limit), warning from 80 %, full at 100 %. */
import type { Billing, CapName } from '../api/billing'
import { fmtCount, formatSize } from '../lib/format'

/** The caps in the order the page lists them, with their names. */
export const CAPS: { cap: CapName; label: string }[] = [
  { cap: 'bases', label: 'Document bases' },
  { cap: 'documents', label: 'Documents' },
  { cap: 'storage_bytes', label: 'Storage' },
  { cap: 'queries_per_month', label: 'Questions this month' },
  { cap: 'seats', label: 'Members' },
  { cap: 'api_keys', label: 'API keys' },
]

/** A cap's amount as people read it: storage in bytes' units, the rest as counts; null: unlimited. */
export function capAmount(cap: CapName, n: number | null): string {
  if (n === null) return 'unlimited'
  return cap === 'storage_bytes' ? formatSize(n) : fmtCount(n)
}

/** How full a cap is: `ok`, `warn` from 80 %, `full` at 100 % (an unlimited cap is never full). */
export function capLevel(used: number, limit: number | null): 'ok' | 'warn' | 'full' {
  if (limit === null) return 'ok'
  if (used >= limit) return 'full'
  return used >= 0.8 * limit ? 'warn' : 'ok'
}

/** The use bars of the workspace's plan. */
export function CapBars({ billing }: { billing: Billing }) {
  return (
    <ul class="cap-bars">
      {CAPS.map(({ cap, label }) => {
        const used = billing.used[cap]
        const limit = billing.limits[cap]
        const level = capLevel(used, limit)
        const pct = limit === null ? 0 : limit === 0 ? 100 : Math.min(100, Math.round((used / limit) * 100))
        const text =
          limit === null
            ? `${capAmount(cap, used)} used, unlimited`
            : `${capAmount(cap, used)} of ${capAmount(cap, limit)}`
        return (
          <li key={cap} class={`cap cap-${level}`} data-cap={cap}>
            <div class="cap-head">
              <span class="cap-label">{label}</span>
              <span class="cap-value">
                {text}
                {level === 'full' && <span class="badge badge-error">Limit reached</span>}
                {level === 'warn' && <span class="badge badge-warn">Nearly full</span>}
              </span>
            </div>
            <div
              class="cap-track"
              role="progressbar"
              aria-label={`${label}: ${text}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={pct}
            >
              <div class="cap-fill" style={{ width: `${limit === null ? 0 : pct}%` }} />
            </div>
          </li>
        )
      })}
    </ul>
  )
}
