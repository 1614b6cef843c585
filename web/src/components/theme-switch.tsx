/** The light/dark switch of the top bar and the signed-out pages. */
import { useId } from 'preact/hooks'
import { chooseTheme, type ThemeChoice, themeChoice } from '../lib/theme'

/** Follow the system, light or dark; the choice is kept for the next visit. */
export function ThemeSwitch() {
  const id = useId()
  return (
    <span class="theme-switch">
      <label for={id}>Theme</label>
      <select
        id={id}
        value={themeChoice.value}
        onChange={(e) => chooseTheme(e.currentTarget.value as ThemeChoice)}
      >
        <option value="system">As the system</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </span>
  )
}
