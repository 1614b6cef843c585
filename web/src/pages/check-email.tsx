import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { resendVerification } from '../api/auth'
import { ApiError } from '../api/client'
import type { LinkResp } from '../api/types'
import { PublicLayout } from '../components/layout'
import { ServerLog } from '../components/link-delivery'
import { Button, ErrorBox, Field, Loading, Note } from '../components/ui'
import { useAction } from '../lib/action'
import { useAuthConfig } from '../lib/auth-config'
import { consolePath } from '../lib/console-link'
import { useCountdown } from '../lib/countdown'
import { handedLink } from '../lib/handoff'
import '../styles/accounts.css'

type Delivery = LinkResp['link_delivery']

/** Where the link went, in the visitor's terms (`link_delivery` of the sign-up or resend answer). */
function WhereItWent({ email, delivery, link }: { email: string; delivery: Delivery; link: string | null }) {
  if (delivery === 'response' && link) {
    return (
      <>
        <p>
          Email is turned off on this server, so the confirmation link for <strong>{email}</strong> is shown
          here:
        </p>
        <a class="btn btn-primary" href={consolePath(link)}>
          Confirm my address
        </a>
      </>
    )
  }
  if (delivery === 'response') {
    return (
      <p>
        Email is turned off on this server: the confirmation link for <strong>{email}</strong> is shown on
        this page when it is sent. Send it again to see a new one.
      </p>
    )
  }
  if (delivery === 'server_log') {
    return (
      <p>
        This server sends no email, so the confirmation link for <strong>{email}</strong> was written to{' '}
        <ServerLog />, not sent to you: ask the person who runs this server for it.
      </p>
    )
  }
  return (
    <p>
      We sent a confirmation link to <strong>{email}</strong>: check your inbox. Open it to finish creating
      your workspace. It works once; if it does not arrive in a few minutes, check your spam folder or send it
      again.
    </p>
  )
}

/** What a resend did, in the visitor's terms; the same whether or not the address is waiting. */
function resentNote(delivery: Delivery, resent: 'link' | 'none'): string {
  if (delivery === 'email') return 'If that address is waiting to be confirmed, a new link is on its way.'
  if (delivery === 'server_log')
    return "If that address is waiting to be confirmed, a new link was written to the server's log for its operator."
  return resent === 'link'
    ? 'Here is a new link; the older one no longer works.'
    : 'No new link: the address is already confirmed, has no sign-up waiting, or had a link moments ago.'
}

/**
 * "Check your email" after an open-mode sign-up: says where the verification link went, and sends
 * it again no sooner than the server's cooldown, shown as a countdown.
 */
export function CheckEmail() {
  const { query } = useLocation()
  const config = useAuthConfig()
  const [email, setEmail] = useState(query.email ?? '')
  const [link, setLink] = useState<string | null>(handedLink.value)
  const [delivery, setDelivery] = useState<Delivery>((query.delivery as Delivery) ?? undefined)
  // The sign-up that brought the visitor here has just sent a link: the cooldown starts now.
  const [sentAt, setSentAt] = useState(() => (query.email ? Date.now() : 0))
  // What the last resend answered: a fresh link ('link'), or none ('none').
  const [resent, setResent] = useState<'link' | 'none' | null>(null)
  const cooldown = (config?.resend_cooldown_seconds ?? 60) * 1000
  const [until, setUntil] = useState(0)
  const wait = useCountdown(until || sentAt + cooldown)
  const resend = useAction(async (e: Event) => {
    e.preventDefault()
    try {
      const resp = await resendVerification(email)
      setDelivery(resp.link_delivery)
      if (resp.verify_link) setLink(resp.verify_link)
      setResent(resp.verify_link ? 'link' : 'none')
      setUntil(0)
      setSentAt(Date.now())
    } catch (err) {
      // Too soon: the countdown follows the server's Retry-After.
      const retry = err instanceof ApiError ? err.retryAfter : null
      if (retry) setUntil(Date.now() + retry * 1000)
      throw err
    }
  })
  if (!config) return <Loading />

  return (
    <PublicLayout title="Check your email">
      <div class="stack">
        {query.email || (resent && link) ? (
          <WhereItWent email={email} delivery={delivery ?? config.link_delivery} link={link} />
        ) : (
          <p>Enter the address you signed up with to get a new confirmation link.</p>
        )}
        {resent && <Note kind="ok">{resentNote(delivery ?? config.link_delivery, resent)}</Note>}
        <form class="stack" onSubmit={resend.run}>
          {!query.email && (
            <Field
              label="Email"
              type="email"
              name="email"
              required
              autocomplete="email"
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
          <ErrorBox error={resend.error} />
          <Button type="submit" busy={resend.busy} disabled={wait > 0 || !email}>
            {wait > 0 ? `Send the link again in ${wait} s` : 'Send the link again'}
          </Button>
          {wait > 0 && (
            <p class="hint">
              One link per {config.resend_cooldown_seconds} seconds: a newer link replaces the older one.
            </p>
          )}
        </form>
      </div>
      <p class="links">
        <a href="/console/sign-in">Sign in</a>
      </p>
    </PublicLayout>
  )
}
