import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { resetPassword } from '../api/auth'
import { PublicLayout } from '../components/layout'
import { Button, ErrorBox, Field, Note } from '../components/ui'
import { useAction } from '../lib/action'

/**
 * Where the emailed reset link lands: a new password, sent with the link's token
 * (`POST /auth/reset-password`); it ends every older session, so the user signs in again.
 */
export function ResetPassword() {
  const { query } = useLocation()
  const token = query.token ?? ''
  const [done, setDone] = useState(false)
  const reset = useAction(async (e: Event) => {
    e.preventDefault()
    const f = new FormData(e.currentTarget as HTMLFormElement)
    const password = String(f.get('password'))
    if (password !== String(f.get('confirm'))) throw new Error('The two passwords are not the same.')
    await resetPassword(token, password)
    setDone(true)
  })
  if (!token) {
    return (
      <PublicLayout title="Choose a new password">
        <ErrorBox error={new Error('This link has no token. Open the link from the email again.')} />
        <p class="links">
          <a href="/console/forgot-password">Ask for a new link</a>
        </p>
      </PublicLayout>
    )
  }
  if (done) {
    return (
      <PublicLayout title="Password changed">
        <div class="stack">
          <Note kind="ok">Your password is changed, and any other sessions are signed out.</Note>
          <a class="btn btn-primary" href="/console/sign-in">
            Sign in
          </a>
        </div>
      </PublicLayout>
    )
  }
  return (
    <PublicLayout title="Choose a new password">
      <form class="stack" onSubmit={reset.run}>
        <Field
          label="New password"
          type="password"
          name="password"
          required
          minLength={8}
          maxLength={128}
          autocomplete="new-password"
          hint="8 to 128 characters."
        />
        <Field
          label="Repeat the new password"
          type="password"
          name="confirm"
          required
          minLength={8}
          maxLength={128}
          autocomplete="new-password"
        />
        <ErrorBox error={reset.error} />
        <Button type="submit" variant="primary" busy={reset.busy}>
          Set the new password
        </Button>
      </form>
      <p class="links">
        <a href="/console/forgot-password">Ask for a new link</a>
        <a href="/console/sign-in">Sign in</a>
      </p>
    </PublicLayout>
  )
}
