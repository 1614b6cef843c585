/**
 * uPlot, fetched on first use: it is a chunk of its own (Bun.build splitting), so the pages without
 * a chart (sign-in first) do not wait for a chart library. Import only its types statically
 * (`import type uPlot from 'uplot'`); its style sheet may stay a static import (small, it joins
 * the console's one sheet). A static `import uPlot from 'uplot'` anywhere puts it back in the
 * script every page loads.
 */
import type uPlot from 'uplot'

/** The uPlot class. */
export type UPlot = typeof uPlot

let loading: Promise<UPlot> | null = null

/** uPlot, loaded once; a failed load is tried again on the next call. */
export function loadUPlot(): Promise<UPlot> {
  loading ??= import('uplot').then((m) => m.default)
  loading.catch(() => {
    loading = null
  })
  return loading
}
