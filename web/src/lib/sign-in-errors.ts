/**
 * What a failed sign-in through a provider says. The server sends the browser back to
 * `/console/sign-in?error=<code>`; the code is one of the API's error codes (or the provider's own
 * OAuth error, such as `access_denied`), and the sign-in page shows these words, never the bare
 * code. An unknown code still reads as a sentence, with the code to quote to an admin.
 */
const MESSAGES: Record<string, string> = {
  access_denied: 'Sign-in was cancelled at the identity provider. Nothing was changed; try again when ready.',
  sso_required: 'Your workspace signs in with single sign-on: use “Sign in with SSO” and your work address.',
  sso_not_configured:
    'Single sign-on is not set up for that address. Sign in with your password, or ask your admin.',
  seat_cap_reached:
    'Your workspace has no free seat for a new single sign-on member. Ask an admin of the workspace to raise the seat cap.',
  account_deactivated: 'This account has been deactivated. Ask an admin of your workspace.',
  email_not_verified:
    'The identity provider has not verified this email address, so it cannot be used to sign in.',
  email_taken:
    'This address already belongs to another workspace, so it cannot join this one through single sign-on.',
  registration_closed:
    'This server does not create workspaces on sign-in. Ask for an invitation, or request access below.',
  invalid_state: 'The sign-in took too long or was started in another tab. Start again from this page.',
  invalid_token: 'The sign-in link is invalid, already used or expired. Start again from this page.',
}

/** The sentence for a failed provider sign-in's `error` code. */
export function signInErrorMessage(code: string): string {
  return (
    MESSAGES[code] ??
    `Signing in through the identity provider did not work (${code}). Try again; if it keeps happening, tell your admin this code.`
  )
}
