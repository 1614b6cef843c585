import { useState } from 'preact/hooks'
import { forgotPassword } from '../api/auth'
import type { LinkResp } from '../api/types'
import { PublicLayout } from '../components/layout'
import { LinkDeliveryHint, ServerLog } from '../components/link-delivery'
import { Button, ErrorBox, Field, Note } from '../components/ui'
import { useAction } from '../lib/action'
import { useAuthConfig } from '../lib/auth-config'
import { consolePath } from '../lib/console-link'
import '../styles/accounts.css'

/** What happened to the reset link; the same words whether or not the address has an account. */
function Sent({ email, resp }: { email: string; resp: LinkResp }) {
  if (resp.reset_link) {
    return (
      <div class="stack">
        <p>
          Email is turned off on this server, so the reset link for <strong>{email}</strong> is shown here. It
          works once and expires within the hour.
        </p>
        <a class="btn btn-primary" href={consolePath(resp.reset_link)}>
          Choose a new password
        </a>
      </div>
    )
  }
  if (resp.link_delivery === 'server_log') {
    return (
      <Note>
        This server sends no email. If <strong>{email}</strong> has an account, its reset link was written to{' '}
        <ServerLog />, not sent to you: ask the person who runs this server for it. It works once and expires
        within the hour.
      </Note>
    )
  }
  if (resp.link_delivery === 'response') {
    return (
      <Note>
        No link came back: either <strong>{email}</strong> has no account here, or a link was sent less than a
        minute ago. Wait a minute and ask again.
      </Note>
    )
  }
  return (
    <Note>
      If <strong>{email}</strong> has an account, a reset link is on its way: check your inbox. It works once
      and expires within the hour; check your spam folder if it does not arrive.
    </Note>
  )
}

/** Asks for a password reset link (`POST /auth/forgot-password`, always `sent`). */
export function ForgotPassword() {
  const config = useAuthConfig()
  const [done, setDone] = useState<{ email: string; resp: LinkResp } | null>(null)
  const ask = useAction(async (e: Event) => {
    e.preventDefault()
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email'))
    setDone({ email, resp: await forgotPassword(email) })
  })
  return (
    <PublicLayout title="Reset your password">
      {done ? (
        <Sent email={done.email} resp={done.resp} />
      ) : (
        <form class="stack" onSubmit={ask.run}>
          <p>Enter the address you sign in with; we will send a link to choose a new password.</p>
          <LinkDeliveryHint delivery={config?.link_delivery} what="the reset link" />
          <Field label="Email" type="email" name="email" required autocomplete="email" />
          <ErrorBox error={ask.error} />
          <Button type="submit" variant="primary" busy={ask.busy}>
            Send the reset link
          </Button>
        </form>
      )}
      <p class="links">
        <a href="/console/sign-in">Back to sign-in</a>
      </p>
    </PublicLayout>
  )
}
