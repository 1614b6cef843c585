import { useLocation } from 'preact-iso'
import { verifyEmail } from '../api/auth'
import { PublicLayout } from '../components/layout'
import { ErrorBox, Loading, Note } from '../components/ui'
import { useLoad } from '../lib/use-load'

/**
 * Where the emailed verification link lands: spends the token once (`GET /auth/verify-email`) and
 * offers sign-in; a bad, spent or expired link shows the API's words and the way to a new one.
 */
export function VerifyEmail() {
  const { query } = useLocation()
  const token = query.token ?? ''
  const load = useLoad(
    (signal) =>
      token
        ? verifyEmail(token, signal)
        : Promise.reject(new Error('This link has no token. Open the link from the email again.')),
    [token],
  )
  if (load.loading && !load.data) {
    return (
      <PublicLayout title="Confirming your address">
        <Loading label="Confirming your address…" />
      </PublicLayout>
    )
  }
  if (load.error || !load.data) {
    return (
      <PublicLayout title="This link does not work">
        <div class="stack">
          <ErrorBox error={load.error} />
          <p>
            A confirmation link works once and expires after a day. If you already used it, sign in; otherwise
            ask for a new one.
          </p>
        </div>
        <p class="links">
          <a href="/console/sign-in">Sign in</a>
          <a href="/console/check-email">Send a new link</a>
        </p>
      </PublicLayout>
    )
  }
  return (
    <PublicLayout title="Address confirmed">
      <div class="stack">
        <Note kind="ok">Your address is confirmed. Sign in to start using your workspace.</Note>
        <a class="btn btn-primary" href="/console/sign-in">
          Sign in
        </a>
      </div>
    </PublicLayout>
  )
}
