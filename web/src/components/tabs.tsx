/**
 * Tabs as the WAI-ARIA tabs pattern has them: one tab in the Tab order (the selected one), the
 * arrow keys, Home and End move between tabs and select them, and each panel is named by its tab.
 */
import type { ComponentChildren } from 'preact'
import { useId, useRef } from 'preact/hooks'
import '../styles/tabs.css'

export interface TabDef {
  id: string
  label: string
}

/** A tab list over the panel of the selected tab; `onSelect` is told which tab was picked. */
export function Tabs(props: {
  label: string
  tabs: TabDef[]
  selected: string
  onSelect: (id: string) => void
  children: ComponentChildren
}) {
  const base = useId()
  const list = useRef<HTMLDivElement>(null)
  const index = Math.max(
    0,
    props.tabs.findIndex((t) => t.id === props.selected),
  )
  const move = (to: number) => {
    const n = props.tabs.length
    const next = props.tabs[(to + n) % n]!
    props.onSelect(next.id)
    list.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(`${base}-tab-${next.id}`)}`)?.focus()
  }
  const onKeyDown = (e: KeyboardEvent) => {
    const keys: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: props.tabs.length - 1,
    }
    const to = keys[e.key]
    if (to === undefined) return
    e.preventDefault()
    move(to)
  }
  const current = props.tabs[index]!
  return (
    <>
      <div class="tabs" role="tablist" aria-label={props.label} ref={list} onKeyDown={onKeyDown}>
        {props.tabs.map((t) => {
          const on = t.id === current.id
          return (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={`${base}-tab-${t.id}`}
              class="tab"
              aria-selected={on}
              aria-controls={`${base}-panel`}
              tabIndex={on ? 0 : -1}
              onClick={() => props.onSelect(t.id)}
            >
              {t.label}
            </button>
          )
        })}
      </div>
      <div
        class="tab-panel"
        role="tabpanel"
        id={`${base}-panel`}
        aria-labelledby={`${base}-tab-${current.id}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the tabs pattern makes a panel focusable so it can be reached after its tab.
        tabIndex={0}
      >
        {props.children}
      </div>
    </>
  )
}
