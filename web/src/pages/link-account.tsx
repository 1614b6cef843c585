/**
 * Linking a provider's identity to an existing password account: a Google sign-in whose address
 * already has an Engram password lands here (through the callback page, which keeps the ticket in
 * this tab). The page names the address and the provider (`/auth/link-info`) and asks for the
 * account's password once (`/auth/link`); after that, the provider signs the person in directly.
 */
import { useLocation } from 'preact-iso'
import { loadMe } from '../api/auth'
import { ApiError } from '../api/client'
import { linkAccount, linkInfo } from '../api/identity'
import { adopt } from '../api/session'
import { PublicLayout } from '../components/layout'
import { goToSso } from '../components/provider-sign-in'
import { Button, ErrorBox, Field, Loading } from '../components/ui'
import { useAction } from '../lib/action'
import { forgetLinkTicket, linkTicket, takeReturnPath } from '../lib/sign-in-trip'
import { useLoad } from '../lib/use-load'

/** A provider's name as people know it (`google` → Google). */
export function providerName(provider: string): string {
  if (provider === 'google') return 'Google'
  if (provider === 'sso' || provider === 'oidc') return 'single sign-on'
  return provider
}

/** The link-account page. */
export function LinkAccount() {
  const { route } = useLocation()
  const ticket = linkTicket()
  const info = useLoad(
    (signal) =>
      ticket
        ? linkInfo(ticket, signal)
        : Promise.reject(
            new Error('There is no sign-in to link in this tab. Start again from the sign-in page.'),
          ),
    [ticket],
  )
  const link = useAction(
    async (e: Event) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget as HTMLFormElement)
      adopt(await linkAccount(ticket ?? '', String(f.get('password'))))
      forgetLinkTicket()
      await loadMe()
      route(takeReturnPath(), true)
    },
    { leaves: true },
  )
  const sso = useAction(() => goToSso(info.data?.email ?? '', '/console/bases'), { leaves: true })
  if (info.loading && !info.data) {
    return (
      <PublicLayout title="Link your account">
        <Loading label="Reading the sign-in…" />
      </PublicLayout>
    )
  }
  if (!info.data) {
    return (
      <PublicLayout title="This sign-in cannot be linked">
        <div class="stack">
          <ErrorBox error={info.error} />
          <p>A sign-in waits a few minutes to be linked. Sign in again with your provider to start over.</p>
        </div>
        <p class="links">
          <a href="/console/sign-in" onClick={forgetLinkTicket}>
            Go to sign-in
          </a>
        </p>
      </PublicLayout>
    )
  }
  const { email, provider } = info.data
  const name = providerName(provider)
  const code = link.error instanceof ApiError ? link.error.code : null
  return (
    <PublicLayout title="Link your account">
      <p>
        <strong>{email}</strong> already has an Engram account that signs in with a password. Enter that
        password once to link your {name} sign-in to it; from then on, {name} signs you in.
      </p>
      <form class="stack" onSubmit={link.run}>
        {/* The address, for password managers; it is the ticket's, not typed. */}
        <input type="hidden" name="username" autocomplete="username" value={email} />
        <Field
          label="Your Engram password"
          type="password"
          name="password"
          autocomplete="current-password"
          required
        />
        <ErrorBox error={link.error} />
        {code === 'sso_required' && (
          <div class="stack">
            <p>Your workspace signs in with its own single sign-on instead.</p>
            <ErrorBox error={sso.error} />
            <Button variant="primary" busy={sso.busy} onClick={() => sso.run()}>
              Continue with SSO
            </Button>
          </div>
        )}
        <Button type="submit" variant={code === 'sso_required' ? 'plain' : 'primary'} busy={link.busy}>
          Link and sign in
        </Button>
      </form>
      <p class="links">
        <a href="/console/forgot-password">Forgot your password?</a>
        <a href="/console/sign-in" onClick={forgetLinkTicket}>
          Cancel
        </a>
      </p>
    </PublicLayout>
  )
}
