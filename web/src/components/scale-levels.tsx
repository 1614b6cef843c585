/** The levels of a scale test run: queries a second and latency by concurrency, drawn and tabled. */
import type { LevelRecord } from '../api/types'
import { fmtCount, fmtMs } from '../lib/format'
import { LineChart } from './chart'

/** The levels ascending (the test runs them highest first). */
function ascending(records: LevelRecord[]): LevelRecord[] {
  return [...records].sort((a, b) => a.level - b.level)
}

/** Queries a second and latency by concurrency, both strategies. */
export function LevelCharts({ records }: { records: LevelRecord[] }) {
  const rows = ascending(records)
  const x = rows.map((r) => r.level)
  return (
    <div class="grid-2">
      <LineChart
        title="Queries per second by concurrency"
        x={x}
        xLabel="Concurrency"
        yLabel="Queries/s"
        series={[
          { label: 'cart', color: '--accent', values: rows.map((r) => r.cart.qps) },
          { label: 'rag', color: '--warn', values: rows.map((r) => r.rag.qps) },
        ]}
      />
      <LineChart
        title="Latency by concurrency (ms)"
        x={x}
        xLabel="Concurrency"
        yLabel="ms"
        series={[
          { label: 'cart mean', color: '--accent', values: rows.map((r) => r.cart.lat) },
          { label: 'rag mean', color: '--warn', values: rows.map((r) => r.rag.lat) },
          { label: 'cart p95', color: '--accent', dash: [6, 4], values: rows.map((r) => r.cart.lat_p95) },
          { label: 'rag p95', color: '--warn', dash: [6, 4], values: rows.map((r) => r.rag.lat_p95) },
        ]}
      />
    </div>
  )
}

/** Each level's figures, in the order measured. */
export function LevelTable({ records }: { records: LevelRecord[] }) {
  if (records.length === 0) return null
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Scale test levels</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              Concurrency
            </th>
            <th scope="col" class="num">
              cart q/s
            </th>
            <th scope="col" class="num">
              cart latency (p95)
            </th>
            <th scope="col" class="num">
              rag q/s
            </th>
            <th scope="col" class="num">
              rag latency (p95)
            </th>
            <th scope="col" class="num">
              Answered
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <tr key={r.level}>
              <th scope="row" class="num">
                {r.level}
                {r.partial ? ' (partial)' : ''}
              </th>
              <td class="num">{r.cart.qps.toFixed(1)}</td>
              <td class="num">
                {fmtMs(r.cart.lat)} ({fmtMs(r.cart.lat_p95)})
              </td>
              <td class="num">{r.rag.qps.toFixed(1)}</td>
              <td class="num">
                {fmtMs(r.rag.lat)} ({fmtMs(r.rag.lat_p95)})
              </td>
              <td class="num">
                {fmtCount(r.cart.ok + r.rag.ok)} / {fmtCount(r.cart.reqs + r.rag.reqs)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
