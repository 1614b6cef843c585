/**
 * A table's scrolling box (`.table-wrap`) that keyboard users can scroll too: at 375 px a wide
 * table scrolls sideways, and a box holding no link or button must take focus itself to be
 * scrolled with the arrow keys (axe: scrollable-region-focusable). Named for screen readers.
 */
import type { ComponentChildren } from 'preact'

/** Wraps a table; `label` names the region ("API keys"). */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section class="table-wrap table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  )
}

/** Wraps a table in a section named by its heading (`labelledBy`, the heading's id). */
export function TableBox({ labelledBy, children }: { labelledBy: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: on a narrow screen the box scrolls, and a keyboard can only scroll what takes focus (axe: scrollable-region-focusable).
    <section class="table-wrap" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  )
}
