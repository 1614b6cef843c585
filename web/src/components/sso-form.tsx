/**
 * The workspace's single sign-on settings as a form: the OpenID provider (issuer, client id and
 * secret), the email domains that sign in through it, what a new member gets, and whether password
 * sign-in is refused. The secret is write-only: once stored, leaving it empty keeps it.
 */
import { useState } from 'preact/hooks'
import { saveSso } from '../api/identity'
import type { SsoSettings } from '../api/types'
import { useAction } from '../lib/action'
import { Button, ErrorBox, Field, Note } from './ui'

/** Domains as typed (commas, spaces or lines between them), lower-cased, without repeats. */
export function parseDomains(text: string): string[] {
  const all = text
    .split(/[\s,;]+/)
    .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean)
  return [...new Set(all)]
}

/**
 * The settings form, its fields filled from `current` (uncontrolled: the page gives it a new key
 * when the settings change, so a saved form starts again from the server's values, secret empty).
 * `onSaved` gets the server's answer (with recovery codes when just enforced). */
export function SsoForm({ current, onSaved }: { current: SsoSettings; onSaved: (s: SsoSettings) => void }) {
  const [enforce, setEnforce] = useState(current.enforce ?? false)
  const save = useAction(async (e: Event) => {
    e.preventDefault()
    const f = new FormData(e.currentTarget as HTMLFormElement)
    const secret = String(f.get('client_secret') ?? '')
    const cap = String(f.get('seat_cap') ?? '').trim()
    const saved = await saveSso({
      issuer: String(f.get('issuer')).trim(),
      client_id: String(f.get('client_id')).trim(),
      ...(secret ? { client_secret: secret } : {}),
      domains: parseDomains(String(f.get('domains'))),
      enforce,
      default_role: String(f.get('default_role')) === 'admin' ? 'admin' : 'member',
      seat_cap: cap ? Number(cap) : null,
    })
    onSaved(saved)
  })
  const turningOn = enforce && !current.enforce
  return (
    <form class="card stack sso-form" onSubmit={save.run} aria-labelledby="sso-form-h">
      <h2 id="sso-form-h" class="card-title">
        {current.configured ? 'Settings' : 'Set up single sign-on'}
      </h2>
      <div class="grid-2">
        <Field
          label="Issuer URL"
          name="issuer"
          type="url"
          required
          maxLength={2048}
          defaultValue={current.issuer ?? ''}
          placeholder="https://login.example.com"
          hint="Your OpenID Connect provider's issuer. Engram reads its discovery document from <issuer>/.well-known/openid-configuration."
        />
        <Field
          label="Client ID"
          name="client_id"
          required
          maxLength={255}
          autocomplete="off"
          defaultValue={current.client_id ?? ''}
        />
        <Field
          label="Client secret"
          name="client_secret"
          type="password"
          required={!current.client_secret_set}
          maxLength={4096}
          autocomplete="new-password"
          hint={
            current.client_secret_set
              ? 'A secret is stored (never shown). Leave empty to keep it, or type a new one to replace it.'
              : 'From the application you registered at the provider. Stored encrypted; never shown again.'
          }
        />
        <Field
          label="Email domains"
          name="domains"
          required
          defaultValue={(current.domains ?? []).join(', ')}
          placeholder="example.com, example.org"
          hint="Addresses at these domains sign in through this provider. Separate them with commas."
        />
        <div class="field">
          <label for="sso-role">Role of a new member</label>
          <select id="sso-role" name="default_role" aria-describedby="sso-role-hint">
            <option value="member" selected={current.default_role !== 'admin'}>
              Member
            </option>
            <option value="admin" selected={current.default_role === 'admin'}>
              Admin
            </option>
          </select>
          <p class="hint" id="sso-role-hint">
            Someone signing in for the first time joins the workspace with this role.
          </p>
        </div>
        <Field
          label="Seat cap (optional)"
          name="seat_cap"
          type="number"
          min={1}
          max={1000000}
          defaultValue={current.seat_cap == null ? '' : String(current.seat_cap)}
          hint="Active members the workspace may hold before single sign-on stops adding new ones. Empty: no cap."
        />
      </div>
      <label class="check">
        <input type="checkbox" checked={enforce} onChange={(e) => setEnforce(e.currentTarget.checked)} />
        <span>
          <strong>Require single sign-on</strong>{' '}
          <span class="muted">— refuse password sign-in for everyone in the workspace</span>
        </span>
      </label>
      {turningOn && (
        <Note kind="warn">
          Saving refuses passwords from then on and ends every session signed in with one, yours included: you
          sign in again through your identity provider. You get recovery codes, shown once: keep them to sign
          in as an admin if the provider ever fails.
        </Note>
      )}
      <ErrorBox error={save.error} />
      <div>
        <Button type="submit" variant="primary" busy={save.busy}>
          {current.configured ? 'Save settings' : 'Turn on single sign-on'}
        </Button>
      </div>
    </form>
  )
}
