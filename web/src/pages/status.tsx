/** Platform status: each component's live state (as the server last measured it) and the service objectives. */
import { getSlo, getStatus } from '../api/status'
import type { ComponentState, PlatformStatus } from '../api/types'
import { TableScroll } from '../components/table-scroll'
import { Async, Button, PageHeader, Time } from '../components/ui'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'

const BADGE: Record<ComponentState, { cls: string; text: string }> = {
  operational: { cls: 'badge-ok', text: 'Operational' },
  degraded: { cls: 'badge-warn', text: 'Degraded' },
  down: { cls: 'badge-error', text: 'Down' },
  disabled: { cls: '', text: 'Disabled' },
}

/** The status page. */
export function Status(_props: { id?: string }) {
  const status = useLoad((signal) => getStatus(signal), [])
  const slo = useLoad((signal) => getSlo(signal), [])
  return (
    <>
      <PageHeader title="Platform status" lead="How this Engram server and what it depends on are doing.">
        <Button onClick={status.reload} busy={status.loading && status.data !== undefined}>
          Check again
        </Button>
      </PageHeader>
      <Async load={status}>{(s) => <StatusView s={s} />}</Async>
      <h2>Service objectives</h2>
      <Async load={slo}>
        {(o) => (
          <dl class="tiles">
            <Tile label="Availability" value={`${o.availability.target_percent}%`}>
              of requests answered without a server error
            </Tile>
            <Tile label="Median latency" value={`${o.latency.p50_ms} ms`}>
              chat excluded
            </Tile>
            <Tile label="99th percentile latency" value={`${o.latency.p99_ms} ms`}>
              chat excluded
            </Tile>
            <Tile label="Measured over" value={`${o.window_days} days`}>
              a rolling window
            </Tile>
          </dl>
        )}
      </Async>
    </>
  )
}

function Tile({ label, value, children }: { label: string; value: string; children: string }) {
  return (
    <div class="tile card">
      <dt>{label}</dt>
      <dd>
        {value}
        <span class="tile-note">{children}</span>
      </dd>
    </div>
  )
}

function StatusView({ s }: { s: PlatformStatus }) {
  const ok = s.status === 'operational'
  return (
    <div class="stack">
      <div class={`alert ${ok ? 'alert-ok' : 'alert-warn'}`} role="status">
        <strong>{ok ? 'All systems operational.' : 'Some components are degraded or down.'}</strong> Engram{' '}
        {s.version}, checked <Time iso={s.checked_at} /> (measurements are reused for {s.cache_seconds} s).
      </div>
      <TableScroll label="Components">
        <table>
          <thead>
            <tr>
              <th scope="col">Component</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Latency
              </th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {s.components.map((c) => {
              const b = BADGE[c.status]
              return (
                <tr key={c.name}>
                  <td>{c.name}</td>
                  <td>
                    <span class={`badge ${b.cls}`}>{b.text}</span>
                  </td>
                  <td class="num">{c.latency_ms === undefined ? '—' : `${c.latency_ms} ms`}</td>
                  <td>{c.detail ?? (c.status === 'disabled' ? 'Not configured on this server.' : '')}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </TableScroll>
    </div>
  )
}
