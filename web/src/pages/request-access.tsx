import { useState } from 'preact/hooks'
import { requestAccess } from '../api/auth'
import { PublicLayout } from '../components/layout'
import { Button, ErrorBox, Field, Note } from '../components/ui'
import { useAction } from '../lib/action'

/** While sign-up is by invitation only: leaves an address for the operator (always `pending`). */
export function RequestAccess() {
  const [sent, setSent] = useState<string | null>(null)
  const request = useAction(async (e: Event) => {
    e.preventDefault()
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email'))
    await requestAccess(email)
    setSent(email)
  })
  return (
    <PublicLayout title="Request access">
      {sent ? (
        <Note kind="ok">
          Your request for <strong>{sent}</strong> is recorded. The people who run this server decide who gets
          a workspace; you will hear from them at that address.
        </Note>
      ) : (
        <form class="stack" onSubmit={request.run}>
          <p>
            This server creates workspaces by invitation. Leave your address and its operator can invite you.
            If a colleague already has a workspace here, ask them for an invitation instead.
          </p>
          <Field label="Email" type="email" name="email" required autocomplete="email" />
          <ErrorBox error={request.error} />
          <Button type="submit" variant="primary" busy={request.busy}>
            Request access
          </Button>
        </form>
      )}
      <p class="links">
        <a href="/console/sign-in">Sign in</a>
      </p>
    </PublicLayout>
  )
}
