/**
 * A line chart drawn by uPlot on a canvas (nothing inline for the CSP to refuse), through
 * `usePlot`: as wide as its container, in the page's light or dark colours. The figure's caption
 * and the table a page shows beside it carry the same numbers for screen readers.
 */
import { useRef } from 'preact/hooks'
import type uPlot from 'uplot'
import { cssVar, usePlot } from './plot'

/** One line: its label, colour (a CSS colour or variable name) and a value for each x (null: a gap). */
export interface ChartSeries {
  label: string
  color: string
  values: (number | null)[]
  dash?: number[]
}

/** A line chart of `series` over `x`, `height` pixels high, as wide as its container. */
export function LineChart(props: {
  title: string
  x: number[]
  xLabel: string
  yLabel: string
  series: ChartSeries[]
  height?: number
}) {
  const box = useRef<HTMLDivElement>(null)
  const height = props.height ?? 220
  const data = [props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData
  const failed = usePlot(
    box,
    (_Plot, el, width) => {
      const text = cssVar(el, '--text', '#222')
      const grid = cssVar(el, '--border', '#ddd')
      const colour = (c: string) => (c.startsWith('--') ? cssVar(el, c, '#888') : c)
      const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
      return {
        width,
        height,
        scales: { x: { time: false } },
        legend: { show: true },
        axes: [
          // Ticks at the measured x values only (concurrency levels are whole numbers).
          { ...axis, label: props.xLabel, splits: (u) => [...((u.data[0] as number[] | undefined) ?? [])] },
          { ...axis, label: props.yLabel, size: 60 },
        ],
        series: [
          { label: props.xLabel },
          ...props.series.map((s) => ({
            label: s.label,
            stroke: colour(s.color),
            width: 2,
            dash: s.dash,
            points: { show: true, size: 7 },
            spanGaps: true,
          })),
        ],
      }
    },
    data,
    [props.x, props.series, height, props.xLabel, props.yLabel],
    (_plot, el) => {
      const canvas = el.querySelector('canvas')
      canvas?.setAttribute('role', 'img')
      canvas?.setAttribute('aria-label', props.title)
    },
  )
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      {failed && (
        <p class="alert alert-error" role="alert">
          The chart could not be drawn ({failed.message}); the numbers are in the table.
        </p>
      )}
      <div ref={box} class="chart-box" />
    </figure>
  )
}
