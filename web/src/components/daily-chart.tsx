/**
 * A daily series as a uPlot chart (canvas), coloured from the page's CSS variables so it follows
 * light and dark, resized with its box. The numbers are also given as a table for screen readers:
 * a canvas says nothing to them.
 */
import { useRef } from 'preact/hooks'
import type uPlot from 'uplot'
import type { UPlot } from '../lib/uplot'
import { cssVar, usePlot } from './plot'
import { TableScroll } from './table-scroll'

/** One point: a day (YYYY-MM-DD, UTC) and its value. */
export interface DailyPoint {
  date: string
  value: number
}

/** `#rrggbb` with an alpha, for the area under the line (a canvas takes no CSS variables). */
function translucent(hex: string, alpha: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex)
  if (!m) return 'transparent'
  const [r, g, b] = m.slice(1).map((h) => Number.parseInt(h, 16))
  return `rgba(${r}, ${g}, ${b}, ${alpha})`
}

/** Seconds since the epoch of a UTC day, as uPlot's time axis wants. */
function daySeconds(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000
}

function options(Plot: UPlot, el: HTMLElement, width: number, seriesLabel: string): uPlot.Options {
  const text = cssVar(el, '--muted', '#5b6270')
  const grid = cssVar(el, '--border', '#d9dce1')
  const accent = cssVar(el, '--accent', '#2457c5')
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
  return {
    width,
    height: 240,
    // Days are UTC dates: label them as such, whatever the reader's zone.
    tzDate: (ts) => Plot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] } },
    axes: [axis, { ...axis, size: 48, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] }],
    series: [
      {},
      {
        label: seriesLabel,
        stroke: accent,
        width: 2,
        fill: translucent(accent, 0.18),
        points: { show: true, size: 5 },
      },
    ],
  }
}

/** The chart of `points`; `label` names the series (and the chart, for screen readers). */
export function DailyChart({ points, label }: { points: DailyPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null)
  const data: uPlot.AlignedData = [points.map((p) => daySeconds(p.date)), points.map((p) => p.value)]
  const failed = usePlot(box, (Plot, el, width) => options(Plot, el, width, label), data, [points, label])
  return (
    <figure class="daily-chart">
      {failed && (
        <p class="alert alert-error" role="alert">
          The chart could not be drawn ({failed.message}); the numbers are below.
        </p>
      )}
      <div
        ref={box}
        class="daily-chart-plot"
        role="img"
        aria-label={`${label}, chart of the last ${points.length} days`}
      />
      <details class="daily-chart-data">
        <summary>Show the numbers</summary>
        <TableScroll label="Questions per day">
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" class="num">
                  {label}
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.date}>
                  <td>{p.date}</td>
                  <td class="num">{p.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </details>
    </figure>
  )
}
