/**
 * Where a provider sign-in (Google, the workspace's SSO) lands: `/console/auth/callback#...`. The
 * server puts what it hands over in the fragment, which browsers never send to a server and which
 * stays out of logs and referrers: a session (`access_token`, `expires_at`), or a `link_ticket` when
 * the address belongs to an existing password account. The fragment is cleared from the address
 * bar and the history before anything else, so the back button or a shared screen does not show it.
 */
import { useEffect, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { loadMe } from '../api/auth'
import { adopt, endSession } from '../api/session'
import { PublicLayout } from '../components/layout'
import { Button, ErrorBox, Loading } from '../components/ui'
import { keepLinkTicket, takeReturnPath } from '../lib/sign-in-trip'

/** What the fragment handed over. */
type Handed =
  | { kind: 'session'; token: string; expiresAt: string | null }
  | { kind: 'link'; ticket: string }
  | { kind: 'error'; code: string }
  | { kind: 'nothing' }

/** Reads the hand-off from a fragment (`#access_token=...&expires_at=...`, `#link_ticket=...`). */
export function readHandOff(hash: string): Handed {
  const p = new URLSearchParams(hash.replace(/^#/, ''))
  const token = p.get('access_token')
  if (token) return { kind: 'session', token, expiresAt: p.get('expires_at') }
  const ticket = p.get('link_ticket')
  if (ticket) return { kind: 'link', ticket }
  const code = p.get('error')
  if (code) return { kind: 'error', code }
  return { kind: 'nothing' }
}

/** The callback page: takes the session (or the link ticket) and goes on. */
export function AuthCallback() {
  const { route } = useLocation()
  const [handed] = useState(() => readHandOff(location.hash))
  const [error, setError] = useState<Error | null>(null)
  useEffect(() => {
    // Out of the address bar and the history before anything else (the path stays, so a reload
    // lands here and says there is nothing to sign in with).
    if (location.hash) history.replaceState(null, '', location.pathname)
    if (handed.kind === 'session') {
      adopt({ access_token: handed.token, expires_at: handed.expiresAt })
      loadMe().then(
        () => route(takeReturnPath(), true),
        (e: Error) => {
          endSession()
          setError(e)
        },
      )
    } else if (handed.kind === 'link') {
      keepLinkTicket(handed.ticket)
      route('/console/auth/link', true)
    } else if (handed.kind === 'error') {
      route(`/console/sign-in?${new URLSearchParams({ error: handed.code })}`, true)
    }
  }, [])
  if (handed.kind === 'nothing') {
    return (
      <PublicLayout title="Nothing to sign in with">
        <p>
          This page finishes a sign-in through Google or your organisation&rsquo;s single sign-on, and there
          is none in progress (a reload after signing in lands here too).
        </p>
        <p class="links">
          <a href="/console/sign-in">Go to sign-in</a>
        </p>
      </PublicLayout>
    )
  }
  return (
    <PublicLayout title={error ? 'Sign-in did not finish' : 'Signing you in'}>
      {error ? (
        <div class="stack">
          <ErrorBox error={error} />
          <Button variant="primary" onClick={() => route('/console/sign-in')}>
            Back to sign-in
          </Button>
        </div>
      ) : (
        <Loading label="Signing you in…" />
      )}
    </PublicLayout>
  )
}
