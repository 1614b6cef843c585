/**
 * Signing in through an identity provider: "Sign in with Google" (the server sends the browser on to
 * Google) and "Sign in with SSO", which asks for the work address first, since the address's domain
 * says which workspace's provider to go to.
 */
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client'
import { googleLoginUrl, ssoStart } from '../api/identity'
import { useAction } from '../lib/action'
import { keepReturnPath } from '../lib/sign-in-trip'
import { Button, ErrorBox, Field } from './ui'
import '../styles/identity.css'

/** Leaves for the workspace's identity provider of `email`; a domain without SSO says so. */
export async function goToSso(email: string, returnTo: string): Promise<void> {
  try {
    const { authorization_url } = await ssoStart(email)
    keepReturnPath(returnTo)
    location.assign(authorization_url)
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      const domain = email.split('@')[1] ?? email
      throw new ApiError(
        404,
        e.code,
        `Single sign-on is not set up for ${domain}. Sign in with your password, or ask your workspace's admin.`,
      )
    }
    throw e
  }
}

/** The provider buttons above the password form, each only when the server has it configured. */
export function ProviderButtons(props: {
  google: boolean
  sso: boolean
  returnTo: string
  onSso: () => void
}) {
  if (!props.google && !props.sso) return null
  return (
    <div class="stack provider-buttons">
      {props.google && (
        // A plain link: the server answers with a redirect to Google's consent screen.
        <a class="btn" href={googleLoginUrl()} onClick={() => keepReturnPath(props.returnTo)}>
          Sign in with Google
        </a>
      )}
      {props.sso && (
        <button type="button" class="btn" onClick={props.onSso}>
          Sign in with SSO
        </button>
      )}
      <p class="or-divider">
        <span>or with your password</span>
      </p>
    </div>
  )
}

/** The email-first step of single sign-on (under the page's heading): the work address, then off to its provider. */
export function SsoStep(props: { email: string; returnTo: string; onBack: () => void }) {
  const [email, setEmail] = useState(props.email)
  const go = useAction(
    async (e: Event) => {
      e.preventDefault()
      await goToSso(email.trim(), props.returnTo)
    },
    { leaves: true },
  )
  return (
    <form class="stack" onSubmit={go.run}>
      <p class="hint">
        Enter your work address: you are sent to your organisation&rsquo;s sign-in page, then back here.
      </p>
      <Field
        label="Work email"
        type="email"
        name="email"
        autocomplete="username"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <ErrorBox error={go.error} />
      <Button type="submit" variant="primary" busy={go.busy}>
        Continue
      </Button>
      <button type="button" class="link-button" onClick={props.onBack}>
        Back to sign-in with a password
      </button>
    </form>
  )
}
