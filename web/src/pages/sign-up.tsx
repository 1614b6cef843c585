import { useLocation } from 'preact-iso'
import { loadMe, register } from '../api/auth'
import { adopt } from '../api/session'
import { PublicLayout } from '../components/layout'
import { FirstRunLinkNote, LinkDeliveryHint } from '../components/link-delivery'
import { Button, ErrorBox, Field, Loading, Note } from '../components/ui'
import { useAction } from '../lib/action'
import { reloadAuthConfig, useAuthConfig } from '../lib/auth-config'
import { handedLink } from '../lib/handoff'

/**
 * Creates a workspace and its admin. On a new install this is the first run: the creator is signed
 * in at once. In open sign-up mode the address must be confirmed first: the visitor is sent to
 * "check your email".
 */
export function SignUp() {
  const { route } = useLocation()
  const config = useAuthConfig()
  const submit = useAction(
    async (e: Event) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget as HTMLFormElement)
      const email = String(f.get('email'))
      const resp = await register({
        workspace_name: String(f.get('workspace')),
        name: String(f.get('name')),
        email,
        password: String(f.get('password')),
      })
      await reloadAuthConfig()
      if (resp.access_token) {
        adopt(resp)
        await loadMe()
        route('/console/bases', true)
      } else {
        const q = new URLSearchParams({ email })
        handedLink.value = resp.verify_link ?? null
        if (resp.link_delivery) q.set('delivery', resp.link_delivery)
        route(`/console/check-email?${q}`, true)
      }
    },
    { leaves: true },
  )
  if (!config) return <Loading />
  const first = config.first_run
  if (!config.registration_enabled) {
    return (
      <PublicLayout title="Sign-up is closed">
        <p>This server creates workspaces by invitation only.</p>
        <p class="links">
          <a href="/console/request-access">Request access</a>
          <a href="/console/sign-in">Sign in</a>
        </p>
      </PublicLayout>
    )
  }
  return (
    <PublicLayout title={first ? 'Welcome to Engram' : 'Create a workspace'}>
      {first && (
        <Note>
          This server has no workspace yet. Create the first one: you will be its admin, and you can invite
          your team from the Members page.
        </Note>
      )}
      {first && <FirstRunLinkNote delivery={config.link_delivery} />}
      {!first && config.signup_mode === 'open' && (
        <LinkDeliveryHint delivery={config.link_delivery} what="the link that confirms your address" />
      )}
      <form onSubmit={submit.run} class="stack">
        <Field label="Workspace name" name="workspace" required maxLength={120} autocomplete="organization" />
        <Field label="Your name" name="name" required maxLength={120} autocomplete="name" />
        <Field label="Email" type="email" name="email" required autocomplete="email" />
        <Field
          label="Password"
          type="password"
          name="password"
          required
          minLength={8}
          autocomplete="new-password"
          hint="At least 8 characters."
        />
        <ErrorBox error={submit.error} />
        <Button type="submit" variant="primary" busy={submit.busy}>
          {first ? 'Create the workspace' : 'Create workspace'}
        </Button>
      </form>
      {!first && (
        <p class="links">
          <a href="/console/sign-in">I already have an account</a>
        </p>
      )}
    </PublicLayout>
  )
}
