/**
 * A line chart drawn by uPlot on a canvas (nothing inline for the CSP to refuse). The chart follows
 * its container's width and the page's light or dark colours; the figure's caption and the table
 * a page shows beside it carry the same numbers for screen readers.
 */
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/** One line: its label, colour (a CSS colour or variable name) and a value for each x (null: a gap). */
export interface ChartSeries {
  label: string
  color: string
  values: (number | null)[]
  dash?: number[]
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim()
  return v || fallback
}

/** A resolved colour: `--name` reads the style sheet's variable. */
function colour(c: string): string {
  return c.startsWith('--') ? cssVar(c, '#888') : c
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
  const plot = useRef<uPlot | null>(null)
  const height = props.height ?? 220
  const shape = `${props.series.map((s) => s.label).join('|')}`

  // The chart is made once per set of series; new values only update its data.
  useEffect(() => {
    const el = box.current
    if (!el) return
    const text = cssVar('--text', '#222')
    const grid = cssVar('--border', '#ddd')
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
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
    const u = new uPlot(opts, [props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData, el)
    plot.current = u
    const canvas = el.querySelector('canvas')
    if (canvas) {
      canvas.setAttribute('role', 'img')
      canvas.setAttribute('aria-label', props.title)
    }
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      u.destroy()
      plot.current = null
    }
  }, [shape, height, props.xLabel, props.yLabel])

  useEffect(() => {
    plot.current?.setData([props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData)
  }, [props.x, props.series])

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} class="chart-box" />
    </figure>
  )
}
