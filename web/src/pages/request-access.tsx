import { useState } from 'preact/hooks'
import { api } from '../api/client'
import { PublicLayout } from '../components/layout'
import { Button, ErrorBox, Field, Note } from '../components/ui'

/** While sign-up is by invitation only: leaves an address for the operator (always `pending`). */
export function RequestAccess() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const [sent, setSent] = useState<string | null>(null)
  const onSubmit = async (e: Event) => {
    e.preventDefault()
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email'))
    setBusy(true)
    setError(null)
    try {
      await api('/auth/request-access', { json: { email }, anonymous: true })
      setSent(email)
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <PublicLayout title="Request access">
      {sent ? (
        <Note kind="ok">
          Your request for <strong>{sent}</strong> is recorded. The people who run this server decide who gets
          a workspace; you will hear from them at that address.
        </Note>
      ) : (
        <form class="stack" onSubmit={onSubmit}>
          <p>
            This server creates workspaces by invitation. Leave your address and its operator can invite you.
            If a colleague already has a workspace here, ask them for an invitation instead.
          </p>
          <Field label="Email" type="email" name="email" required autocomplete="email" />
          <ErrorBox error={error} />
          <Button type="submit" variant="primary" busy={busy}>
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
