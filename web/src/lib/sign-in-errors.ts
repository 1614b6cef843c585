/**
 * What a failed sign-in through a provider says. The server sends the browser back to
 * `/console/sign-in?error=<code>`; the code is one of the API's error codes (or the provider's own
 * OAuth error, such as `access_denied`), and the sign-in page shows these words, never the bare
 * code. An unknown code still reads as a sentence, with the code to quote to an admin.
 */
const MESSAGES: Record<string, string> = {
  access_denied: 'Sign-in was cancelled at the identity provider. Nothing was changed; try again when ready.',
  invalid_state:
    'The sign-in took too long, was started in another browser, or was already used. Start again from this page.',
  provider_sign_in_failed:
    'The identity provider refused the sign-in, or its answer could not be verified. Try again.',
  sso_token_invalid:
    "Your identity provider's answer did not check out, so you were not signed in. Try again; if it keeps happening, ask your admin to test the single sign-on set-up.",
  sso_provider_error:
    'Your identity provider could not be reached or refused the request. Try again later; an admin can test the set-up.',
  provider_unavailable: 'The identity provider could not be reached. Try again later.',
  sso_required: 'Your workspace signs in with single sign-on: use “Sign in with SSO” and your work address.',
  sso_not_configured:
    'Single sign-on is not set up for that address. Sign in with your password, or ask your admin.',
  sso_domain_not_claimed:
    "Your identity provider vouched for an address outside your workspace's single sign-on domains. Sign in with your work address.",
  seat_cap_reached:
    'Your workspace has no free seat for a new single sign-on member. Ask an admin of the workspace to raise the seat cap.',
  google_not_configured: 'Sign-in with Google is not set up on this server. Sign in with your password.',
  email_not_verified:
    'The identity provider has not verified this email address, so it cannot be used to sign in.',
  email_taken:
    'This address already belongs to another workspace, so it cannot join this one through single sign-on.',
  identity_linked_elsewhere: 'This identity is already linked to another Engram account.',
  account_disabled: 'This account has been deactivated. Ask an admin of your workspace.',
  workspace_suspended: 'This workspace is suspended. Ask the person who runs this server.',
  registration_closed:
    'This server does not create workspaces on sign-in. Ask an admin for an invitation, or request access.',
  link_ticket_invalid: 'The sign-in to link has expired or is not valid. Sign in with the provider again.',
  internal_error: 'Something went wrong on the server while signing you in. Try again in a moment.',
}

/** The sentence for a failed provider sign-in's `error` code. */
export function signInErrorMessage(code: string): string {
  return (
    MESSAGES[code] ??
    `Signing in through the identity provider did not work (${code}). Try again; if it keeps happening, tell your admin this code.`
  )
}
