import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { signIn } from '../api/auth'
import { ApiError } from '../api/client'
import { signedOut } from '../api/session'
import { PublicLayout } from '../components/layout'
import { goToSso, ProviderButtons, SsoStep } from '../components/provider-sign-in'
import { Button, ErrorBox, Field, Note } from '../components/ui'
import { useAction } from '../lib/action'
import { useAuthConfig } from '../lib/auth-config'
import { signInErrorMessage } from '../lib/sign-in-errors'

/**
 * Where to go after signing in: the page the visitor came from, if it is one of ours. A `next` that
 * is itself the sign-in page (two redirects to sign-in racing as a session ends) is unwrapped.
 */
export function nextPath(query: Record<string, string>): string {
  const next = query.next ?? ''
  if (!next.startsWith('/console/') || next.startsWith('//')) return '/console/bases'
  const inner = new URL(next, location.origin)
  if (inner.pathname === '/console/sign-in') return nextPath({ next: inner.searchParams.get('next') ?? '' })
  return next
}

/**
 * Sign-in with the OAuth2 password form; remember-me asks for the long session. A session that
 * ended by itself (expired, or a 401) is said first, so that landing here is not a mystery. Where
 * the server has them, Google and single sign-on come first; a provider's failed sign-in comes back
 * as `?error=<code>` and is said in words. A workspace that enforces SSO refuses the password
 * (`sso_required`): the page then offers SSO for the same address, and an admin's recovery code.
 */
export function SignIn() {
  const { query, route } = useLocation()
  const config = useAuthConfig(true)
  // `?sso=1&email=` opens the SSO step for that address (where an invitation under SSO sends its invitee).
  const [email, setEmail] = useState(query.email ?? '')
  const [ssoStep, setSsoStep] = useState(query.sso === '1')
  // Once the password was refused for SSO, the recovery code stays offered (a wrong code included).
  const [enforced, setEnforced] = useState(false)
  const returnTo = nextPath(query)
  const submit = useAction(
    async (e: Event) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget as HTMLFormElement)
      setEmail(String(f.get('email')))
      try {
        await signIn(String(f.get('email')), String(f.get('password')), f.get('remember') === 'on', {
          recoveryCode: String(f.get('recovery_code') ?? '').trim() || undefined,
        })
      } catch (err) {
        if (err instanceof ApiError && err.code === 'sso_required') setEnforced(true)
        throw err
      }
      route(returnTo, true)
    },
    { leaves: true },
  )
  const sso = useAction(() => goToSso(email, returnTo), { leaves: true })
  const code = submit.error instanceof ApiError ? submit.error.code : null
  if (ssoStep) {
    return (
      <PublicLayout title="Sign in with SSO">
        <SsoStep email={email} returnTo={returnTo} onBack={() => setSsoStep(false)} />
      </PublicLayout>
    )
  }
  return (
    <PublicLayout title="Sign in">
      {signedOut.value === 'expired' && !submit.busy && (
        <Note kind="warn">
          <strong>You were signed out</strong>: your session ended (it expired, or was ended on the server).
          Sign in again to go back {query.next ? 'to the page you were on' : 'to the console'}.
        </Note>
      )}
      {query.error && !submit.error && <ErrorBox error={new Error(signInErrorMessage(query.error))} />}
      <ProviderButtons
        google={!!config?.google_enabled}
        sso={!!config?.sso_enabled}
        returnTo={returnTo}
        onSso={() => setSsoStep(true)}
      />
      <form onSubmit={submit.run} class="stack">
        <Field label="Email" type="email" name="email" autocomplete="username" required />
        <Field label="Password" type="password" name="password" autocomplete="current-password" required />
        {enforced && (
          // Break-glass: an admin whose identity provider is down signs in with a one-time code.
          <details class="recovery">
            <summary>An admin with a recovery code?</summary>
            <Field
              label="Recovery code"
              name="recovery_code"
              autocomplete="off"
              spellcheck={false}
              hint="One of the codes shown when single sign-on was enforced. Each works once."
            />
          </details>
        )}
        <label class="check">
          <input type="checkbox" name="remember" /> Keep me signed in
        </label>
        <ErrorBox error={submit.error} />
        {enforced && (
          <div class="stack">
            <ErrorBox error={sso.error} />
            <Button variant="primary" busy={sso.busy} onClick={() => sso.run()}>
              Continue with SSO as {email}
            </Button>
          </div>
        )}
        {code === 'email_not_verified' && (
          <p>
            <a href={`/console/check-email?${new URLSearchParams({ email })}`}>
              Send me a new confirmation link
            </a>
          </p>
        )}
        <Button type="submit" variant={enforced ? 'plain' : 'primary'} busy={submit.busy}>
          Sign in
        </Button>
      </form>
      <p class="links">
        <a href="/console/forgot-password">Forgot your password?</a>
        {config?.registration_enabled && !config.first_run && (
          <a href="/console/sign-up">Create a workspace</a>
        )}
        {config && !config.registration_enabled && <a href="/console/request-access">Request access</a>}
      </p>
    </PublicLayout>
  )
}
