/**
 * The recovery codes of a workspace that requires single sign-on: how many are left, and new ones
 * (every earlier code stops working; the new ones are shown once, by the page's codes dialog).
 */
import { useState } from 'preact/hooks'
import { newRecoveryCodes } from '../api/identity'
import { useAction } from '../lib/action'
import { Button, Confirm } from './ui'

/** The recovery codes card; `onCodes` gets the new codes to show. */
export function SsoRecovery({ left, onCodes }: { left: number; onCodes: (codes: string[]) => void }) {
  const [asking, setAsking] = useState(false)
  const renew = useAction(async () => {
    const codes = await newRecoveryCodes()
    setAsking(false)
    onCodes(codes)
  })
  return (
    <section class="card stack" aria-labelledby="sso-recovery-h">
      <h2 id="sso-recovery-h" class="card-title">
        Recovery codes
      </h2>
      <p class="hint">
        {left === 1 ? '1 code is' : `${left} codes are`} left. With an admin&rsquo;s password, each signs in
        once while the identity provider cannot. New codes replace every earlier one.
      </p>
      <div>
        <Button onClick={() => setAsking(true)}>Make new recovery codes</Button>
      </div>
      <Confirm
        open={asking}
        title="Make new recovery codes?"
        confirmLabel="Make new codes"
        busy={renew.busy}
        error={renew.error}
        onConfirm={() => renew.run()}
        onCancel={() => {
          renew.reset()
          setAsking(false)
        }}
      >
        <p>Every recovery code given until now stops working. The new codes are shown once.</p>
      </Confirm>
    </section>
  )
}
