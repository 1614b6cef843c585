/**
 * A base's settings: whether new and changed documents are onboarded by themselves once the base
 * has been onboarded (`auto_onboard`, through `PATCH /corpora/{id}`). On by default.
 */
import { useEffect, useState } from 'preact/hooks'
import { setAutoOnboard } from '../api/bases'
import type { Corpus } from '../api/types'
import { useAction } from '../lib/action'
import { ErrorBox } from './ui'

/** The settings card of `base`; `onChanged` reloads the base once a setting is saved. */
export function BaseSettings({ base, onChanged }: { base: Corpus; onChanged: () => void }) {
  // The box shows what was asked at once; the base's own value comes back with the reload.
  const [on, setOn] = useState(base.auto_onboard)
  useEffect(() => setOn(base.auto_onboard), [base.auto_onboard])
  const save = useAction(async (value: boolean) => {
    setOn(value)
    try {
      await setAutoOnboard(base.id, value)
    } catch (e) {
      setOn(base.auto_onboard)
      throw e
    }
    onChanged()
  })
  return (
    <div class="card stack">
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={save.busy}
          aria-describedby="auto-onboard-hint"
          onChange={(e) => save.run((e.currentTarget as HTMLInputElement).checked)}
        />
        Onboard new and changed documents by themselves
      </label>
      <p class="hint" id="auto-onboard-hint">
        {base.status === 'new'
          ? 'Once this base has been onboarded, documents added by upload, push or a sync are onboarded a few seconds after they arrive. The first onboarding is yours to start.'
          : 'Documents added by upload, push or a sync are onboarded a few seconds after they arrive. Off: they wait until someone starts onboarding.'}
      </p>
      <ErrorBox error={save.error} />
    </div>
  )
}
