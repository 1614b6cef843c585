/**
 * Which bases an API key reaches: the choice made when creating one (every base, or only some),
 * and how the keys list names them. A key bound to some bases sees no other base and cannot act
 * on the whole workspace (create bases, manage keys or members, read usage).
 */
import type { Corpus } from '../api/types'

/** The bases a key reaches as the API takes them: null for every base, else their ids. */
export type KeyReach = string[] | null

/** The choice between every base (the default) and some bases, each a checkbox. */
export function BaseChoice(props: { bases: Corpus[]; value: KeyReach; onChange: (v: KeyReach) => void }) {
  const { bases, value, onChange } = props
  const some = value !== null
  const toggle = (id: string, on: boolean) =>
    onChange(on ? [...(value ?? []).filter((c) => c !== id), id] : (value ?? []).filter((c) => c !== id))
  return (
    <fieldset>
      <legend>Bases the key reaches</legend>
      <div class="scope-list">
        <label class="check">
          <input type="radio" name="key-reach" checked={!some} onChange={() => onChange(null)} />
          <span>
            <strong>All bases</strong> <span class="muted">— also bases created later</span>
          </span>
        </label>
        <label class="check">
          <input type="radio" name="key-reach" checked={some} onChange={() => onChange([])} />
          <span>
            <strong>Only some bases</strong>{' '}
            <span class="muted">— it sees no other base and cannot create bases or manage the workspace</span>
          </span>
        </label>
      </div>
      {some &&
        (bases.length === 0 ? (
          <p class="hint">This workspace has no base yet: create one first.</p>
        ) : (
          <fieldset class="scope-list key-bases">
            <legend class="visually-hidden">Bases</legend>
            {bases.map((b) => (
              <label class="check" key={b.id}>
                <input
                  type="checkbox"
                  checked={value.includes(b.id)}
                  onChange={(e) => toggle(b.id, e.currentTarget.checked)}
                />
                <span>{b.name}</span>
              </label>
            ))}
          </fieldset>
        ))}
    </fieldset>
  )
}

/** What a key reaches, in words: "All bases", or the names of its bases (a deleted one says so). */
export function reachText(ids: readonly string[] | null, bases: Corpus[]): string {
  if (ids === null) return 'All bases'
  const names = new Map(bases.map((b) => [b.id, b.name]))
  return ids.map((id) => names.get(id) ?? 'a deleted base').join(', ')
}
