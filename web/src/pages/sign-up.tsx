import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api } from '../api/client'
import { adopt, loadMe } from '../api/session'
import type { TokenResp } from '../api/types'
import { PublicLayout } from '../components/layout'
import { FirstRunLinkNote, LinkDeliveryHint } from '../components/link-delivery'
import { Button, ErrorBox, Field, Loading, Note } from '../components/ui'
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
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  if (!config) return <Loading />
  const onSubmit = async (e: Event) => {
    e.preventDefault()
    const f = new FormData(e.currentTarget as HTMLFormElement)
    const email = String(f.get('email'))
    setBusy(true)
    setError(null)
    try {
      const resp = await api<TokenResp>('/auth/register', {
        json: {
          workspace_name: String(f.get('workspace')),
          name: String(f.get('name')),
          email,
          password: String(f.get('password')),
        },
        anonymous: true,
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
    } catch (err) {
      setError(err as Error)
      setBusy(false)
    }
  }
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
      <form onSubmit={onSubmit} class="stack">
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
        <ErrorBox error={error} />
        <Button type="submit" variant="primary" busy={busy}>
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
