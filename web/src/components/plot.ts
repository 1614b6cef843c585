/**
 * The one way the console draws a uPlot chart: uPlot is fetched on first use (lib/uplot.ts), the
 * chart is as wide as its box and follows it, is drawn again when the page switches between light
 * and dark (colours come from the style sheet's variables), and is destroyed with its
 * component. A chart is cheap: new data draws it again.
 */
import type { RefObject } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { onThemeChange } from '../lib/theme'
import { loadUPlot, type UPlot } from '../lib/uplot'

/** A style sheet variable's value on `el` (a canvas takes no CSS variables). */
export function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback
}

/**
 * Draws `data` in the element `box` with the options `options` gives for a width; again when
 * `deps` change. Answers the error when uPlot could not be loaded (the page shows its numbers).
 */
export function usePlot(
  box: RefObject<HTMLElement | null>,
  options: (Plot: UPlot, el: HTMLElement, width: number) => uPlot.Options,
  data: uPlot.AlignedData,
  deps: unknown[],
  onDrawn?: (plot: uPlot, el: HTMLElement) => void,
): Error | null {
  const [failed, setFailed] = useState<Error | null>(null)
  useEffect(() => {
    const el = box.current
    if (!el) return
    let plot: uPlot | null = null
    let gone = false
    let draw = () => {}
    const height = () => plot?.height ?? 0
    const resize = new ResizeObserver(() => {
      if (plot && Math.abs(plot.width - el.clientWidth) > 1)
        plot.setSize({ width: el.clientWidth, height: height() })
    })
    let stopFollowingTheme = () => {}
    loadUPlot().then(
      (Plot) => {
        if (gone) return
        draw = () => {
          plot?.destroy()
          plot = new Plot(options(Plot, el, Math.max(200, el.clientWidth)), data, el)
          onDrawn?.(plot, el)
        }
        draw()
        resize.observe(el)
        stopFollowingTheme = onThemeChange(() => draw())
      },
      (e: Error) => !gone && setFailed(e),
    )
    return () => {
      gone = true
      resize.disconnect()
      stopFollowingTheme()
      plot?.destroy()
    }
  }, deps)
  return failed
}
