/**
 * Single sign-on (admin): the workspace's OpenID Connect provider. The redirect URI to register at
 * the provider (with a copy button), the settings, a test against the provider, removal, and the
 * recovery codes shown once when sign-on becomes required.
 */
import { useState } from 'preact/hooks'
import { deleteSso, getSso } from '../api/identity'
import { me } from '../api/session'
import type { SsoSettings } from '../api/types'
import { RecoveryCodesDialog } from '../components/recovery-codes'
import { SsoChecks } from '../components/sso-checks'
import { SsoForm } from '../components/sso-form'
import { SsoRecovery } from '../components/sso-recovery'
import { SsoRedirect } from '../components/sso-redirect'
import { Async, Button, Confirm, Note, PageHeader, Time } from '../components/ui'
import { useAction } from '../lib/action'
import { useLoad } from '../lib/use-load'
import '../styles/accounts.css'
import '../styles/admin.css'
import '../styles/identity.css'

/** The single sign-on page. */
export function Sso(_props: { id?: string }) {
  const settings = useLoad((signal) => getSso(signal), [])
  const [saved, setSaved] = useState<SsoSettings | null>(null)
  const [codes, setCodes] = useState<string[] | null>(null)
  const [removing, setRemoving] = useState(false)
  return (
    <>
      <PageHeader
        title="Single sign-on"
        lead="Let people of your organisation sign in through your identity provider (OpenID Connect): Okta, Entra ID, Google Workspace, Keycloak and others."
      />
      <Async load={settings}>
        {(loaded) => {
          // The latest save's answer is newer than the load until the next reload.
          const s = saved ?? loaded
          return (
            <div class="stack">
              <Summary s={s} />
              <SsoRedirect uri={s.redirect_uri} />
              <SsoForm
                key={s.updated_at ?? 'new'}
                current={s}
                onSaved={(next) => {
                  if (next.recovery_codes?.length) setCodes(next.recovery_codes)
                  setSaved({ ...next, recovery_codes: undefined })
                }}
              />
              {s.configured && <SsoChecks />}
              {s.enforce && <SsoRecovery left={s.recovery_codes_left ?? 0} onCodes={setCodes} />}
              {s.configured && (
                <section class="card stack" aria-labelledby="sso-remove-h">
                  <h2 id="sso-remove-h" class="card-title">
                    Remove single sign-on
                  </h2>
                  <p class="hint">
                    Members sign in with passwords again. Those who only ever used single sign-on set one with
                    &ldquo;Forgot your password?&rdquo;.
                  </p>
                  <div>
                    <Button variant="danger" onClick={() => setRemoving(true)}>
                      Remove single sign-on
                    </Button>
                  </div>
                </section>
              )}
            </div>
          )
        }}
      </Async>
      <RecoveryCodesDialog
        codes={codes}
        workspace={me.value?.workspace_name ?? ''}
        onClose={() => {
          setCodes(null)
          // Enforcing ended the password sessions, perhaps this one: a 401 here goes to sign-in and back.
          setSaved(null)
          settings.reload()
        }}
      />
      <RemoveSso
        open={removing}
        onCancel={() => setRemoving(false)}
        onDone={() => {
          setRemoving(false)
          setSaved(null)
          settings.reload()
        }}
      />
    </>
  )
}

/** Where the workspace stands: off, on, or required, and the codes left for break-glass. */
function Summary({ s }: { s: SsoSettings }) {
  if (!s.configured) {
    return (
      <Note>
        <strong>Single sign-on is off.</strong> Members sign in with their passwords. Register Engram as an
        application at your provider with the redirect URI below, then fill in the form with what it gives
        you.
      </Note>
    )
  }
  return (
    <Note kind={s.enforce ? 'warn' : 'ok'}>
      <strong>{s.enforce ? 'Single sign-on is required.' : 'Single sign-on is on.'}</strong>{' '}
      {s.enforce
        ? 'Password sign-in is refused for everyone in the workspace, except an admin with a recovery code.'
        : 'Addresses at its domains can sign in through the provider; passwords still work.'}{' '}
      {s.updated_at && (
        <>
          Last changed <Time iso={s.updated_at} />.
        </>
      )}
    </Note>
  )
}

function RemoveSso(props: { open: boolean; onDone: () => void; onCancel: () => void }) {
  const remove = useAction(async () => {
    await deleteSso()
    props.onDone()
  })
  return (
    <Confirm
      open={props.open}
      title="Remove single sign-on?"
      confirmLabel="Remove single sign-on"
      busy={remove.busy}
      error={remove.error}
      onConfirm={() => remove.run()}
      onCancel={() => {
        remove.reset()
        props.onCancel()
      }}
    >
      <p>
        The provider&rsquo;s settings, its domains and the recovery codes are deleted. Members sign in with
        passwords again; nobody is removed from the workspace.
      </p>
    </Confirm>
  )
}
