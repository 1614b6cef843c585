import { useLocation } from 'preact-iso'
import { acceptInvite, inviteInfo, loadMe } from '../api/auth'
import { adopt } from '../api/session'
import { PublicLayout } from '../components/layout'
import { Button, ErrorBox, Field, Loading, Time } from '../components/ui'
import { useAction } from '../lib/action'
import { useLoad } from '../lib/use-load'

/**
 * Where an invitation link lands: names the workspace and the address invited
 * (`POST /auth/invite-info`), then creates the account and signs it in (`/auth/accept-invite`).
 * Where the workspace enforces single sign-on (`sso_required`), no password is asked and no session
 * comes back: the invitee goes on to the sign-in page's SSO step with the invited address.
 */
export function AcceptInvite() {
  const { query, route } = useLocation()
  const token = query.token ?? ''
  const info = useLoad(
    (signal) =>
      token
        ? inviteInfo(token, signal)
        : Promise.reject(new Error('This link has no token. Open the link from the invitation again.')),
    [token],
  )
  const join = useAction(
    async (e: Event) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget as HTMLFormElement)
      const sso = info.data?.sso_required === true
      const name = String(f.get('name'))
      const answer = await acceptInvite(
        sso ? { token, name } : { token, name, password: String(f.get('password')) },
      )
      if (answer.sso_required) {
        // No session: the workspace signs in through its identity provider, as this address.
        const q = new URLSearchParams({ sso: '1', email: info.data?.email ?? '' })
        route(`/console/sign-in?${q}`, true)
        return
      }
      adopt(answer)
      await loadMe()
      route('/console/bases', true)
    },
    { leaves: true },
  )
  if (info.loading && !info.data) {
    return (
      <PublicLayout title="Your invitation">
        <Loading label="Reading the invitation…" />
      </PublicLayout>
    )
  }
  if (!info.data) {
    return (
      <PublicLayout title="This invitation does not work">
        <div class="stack">
          <ErrorBox error={info.error} />
          <p>
            An invitation works once and expires after a few days. Ask the admin who invited you for a new
            one.
          </p>
        </div>
        <p class="links">
          <a href="/console/sign-in">Sign in</a>
        </p>
      </PublicLayout>
    )
  }
  const inv = info.data
  const role = inv.role === 'admin' ? 'an admin' : 'a member'
  return (
    <PublicLayout title={`Join ${inv.workspace_name}`}>
      <p>
        You are invited to <strong>{inv.workspace_name}</strong> as {role}, with the address{' '}
        <strong>{inv.email}</strong>. The invitation expires <Time iso={inv.expires_at} />.
      </p>
      <form class="stack" onSubmit={join.run}>
        <Field label="Your name" name="name" required maxLength={120} autocomplete="name" />
        {inv.sso_required ? (
          <p class="hint">
            {inv.workspace_name} signs in with single sign-on: no password is needed. After joining, you sign
            in through your organisation&rsquo;s sign-in page as {inv.email}.
          </p>
        ) : (
          <Field
            label="Choose a password"
            type="password"
            name="password"
            required
            minLength={8}
            maxLength={128}
            autocomplete="new-password"
            hint="8 to 128 characters. You sign in with your address and this password."
          />
        )}
        <ErrorBox error={join.error} />
        <Button type="submit" variant="primary" busy={join.busy}>
          Join the workspace
        </Button>
      </form>
    </PublicLayout>
  )
}
