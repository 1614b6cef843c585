/**
 * Light or dark: the system's choice (`prefers-color-scheme`) until the person picks one, then
 * theirs, kept in `localStorage` (a preference, nothing secret) so that every tab and the next
 * visit look the same. The choice is the `data-theme` attribute of the page's root element, which
 * the style sheet's colour variables follow.
 */
import { signal } from '@preact/signals'

/** What the person chose: follow the system, or always light, or always dark. */
export type ThemeChoice = 'system' | 'light' | 'dark'

const KEY = 'engram.theme'

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY)
    return v === 'light' || v === 'dark' ? v : 'system'
  } catch {
    return 'system'
  }
}

/** The choice in force. */
export const themeChoice = signal<ThemeChoice>(stored())

/** Puts a choice on the page (the kept one before the first render). */
export function applyTheme(choice: ThemeChoice = themeChoice.value): void {
  const root = document.documentElement
  if (choice === 'system') delete root.dataset.theme
  else root.dataset.theme = choice
}

/** Chooses, keeps and applies a theme. */
export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, choice)
  } catch {
    // Storage off: the choice lasts as long as the page.
  }
  // On the page first: whoever the change wakes (a chart) reads the new colours.
  applyTheme(choice)
  themeChoice.value = choice
}

/** Calls `fn` whenever the page switches between light and dark; answers how to stop. */
export function onThemeChange(fn: () => void): () => void {
  const scheme = matchMedia('(prefers-color-scheme: dark)')
  scheme.addEventListener('change', fn)
  let first = true
  const stop = themeChoice.subscribe(() => {
    // `subscribe` calls at once with the current value: that is not a change.
    if (first) first = false
    else fn()
  })
  return () => {
    scheme.removeEventListener('change', fn)
    stop()
  }
}
