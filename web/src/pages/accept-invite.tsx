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
      adopt(await acceptInvite({ token, name: String(f.get('name')), password: String(f.get('password')) }))
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
        <ErrorBox error={join.error} />
        <Button type="submit" variant="primary" busy={join.busy}>
          Join the workspace
        </Button>
      </form>
    </PublicLayout>
  )
}
