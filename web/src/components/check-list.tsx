/**
 * A fieldset of checkboxes choosing some of a fixed list (a key's scopes, a webhook's events):
 * each option with its label and a hint, the chosen values kept in the caller's state.
 */
import type { ComponentChildren } from 'preact'

/** One choice: its value, what it is called and what it means. */
export interface CheckOption<T extends string> {
  value: T
  label: ComponentChildren
  hint: string
}

/** `value` with `v` added (at the end) or taken out. */
export function toggled<T>(value: T[], v: T, on: boolean): T[] {
  const rest = value.filter((c) => c !== v)
  return on ? [...rest, v] : rest
}

export function CheckList<T extends string>({
  legend,
  options,
  value,
  onChange,
}: {
  legend: string
  options: CheckOption<T>[]
  value: T[]
  onChange: (next: T[]) => void
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div class="scope-list">
        {options.map((o) => (
          <label class="check" key={o.value}>
            <input
              type="checkbox"
              checked={value.includes(o.value)}
              onChange={(e) => onChange(toggled(value, o.value, e.currentTarget.checked))}
            />
            <span>
              {o.label} <span class="muted">— {o.hint}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  )
}
