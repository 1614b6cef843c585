import { useEffect, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { loadMe, signIn } from '../api/auth'
import { ApiError } from '../api/client'
import { adopt, signedOut } from '../api/session'
import { PublicLayout } from '../components/layout'
import { Button, ErrorBox, Field, Note } from '../components/ui'
import { useAction } from '../lib/action'
import { useAuthConfig } from '../lib/auth-config'

/** Where to go after signing in: the page the visitor came from, if it is one of ours. */
export function nextPath(query: Record<string, string>): string {
  const next = query.next ?? ''
  return next.startsWith('/console/') && !next.startsWith('//') ? next : '/console/bases'
}

/**
 * Sign-in with the OAuth2 password form; remember-me asks for the long session. A session that
 * ended by itself (expired, or a 401) is said first, so that landing here is not a mystery.
 */
export function SignIn() {
  const { query, route } = useLocation()
  const config = useAuthConfig()
  const [handoffError, setHandoffError] = useState<Error | null>(null)
  const [email, setEmail] = useState('')
  // A social or single sign-on hand-off puts the session in the fragment (never sent to a server,
  // kept out of logs); it is taken, and the fragment cleared from the address bar and history.
  useEffect(() => {
    const hand = new URLSearchParams(location.hash.slice(1))
    const token = hand.get('access_token')
    if (!token) return
    history.replaceState(null, '', location.pathname + location.search)
    adopt({ access_token: token, expires_at: hand.get('expires_at') })
    loadMe().then(
      () => route(nextPath(query), true),
      (err: Error) => setHandoffError(err),
    )
  }, [])
  const submit = useAction(
    async (e: Event) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget as HTMLFormElement)
      setEmail(String(f.get('email')))
      setHandoffError(null)
      await signIn(String(f.get('email')), String(f.get('password')), f.get('remember') === 'on')
      route(nextPath(query), true)
    },
    { leaves: true },
  )
  const error = submit.error ?? handoffError
  return (
    <PublicLayout title="Sign in">
      {signedOut.value === 'expired' && !submit.busy && (
        <Note kind="warn">
          <strong>You were signed out</strong>: your session ended (it expired, or was ended on the server).
          Sign in again to go back {query.next ? 'to the page you were on' : 'to the console'}.
        </Note>
      )}
      {query.error && <ErrorBox error={new Error(query.error)} />}
      <form onSubmit={submit.run} class="stack">
        <Field label="Email" type="email" name="email" autocomplete="username" required />
        <Field label="Password" type="password" name="password" autocomplete="current-password" required />
        <label class="check">
          <input type="checkbox" name="remember" /> Keep me signed in
        </label>
        <ErrorBox error={error} />
        {error instanceof ApiError && error.code === 'email_not_verified' && (
          <p>
            <a href={`/console/check-email?${new URLSearchParams({ email })}`}>
              Send me a new confirmation link
            </a>
          </p>
        )}
        <Button type="submit" variant="primary" busy={submit.busy}>
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
