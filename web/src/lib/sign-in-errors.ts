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
  plan_limit_reached:
    "Your workspace's plan has no free seat for a new member. Ask an admin of the workspace to free a seat or move to a larger plan.",
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
  identity_mismatch:
    'Your identity provider signed you in as a different person than the account linked to that address. Sign out of the provider and sign in again as yourself, or ask your admin.',
  rate_limited: 'Too many sign-ups from here in the last hour. Wait a while, then try again.',
  disposable_email:
    'That address is at a throwaway email service, which cannot open a workspace. Sign in with a lasting address.',
  ip_not_allowed:
    "Your workspace only accepts sign-ins from its own networks, and this one is not among them. Connect from your organisation's network, or ask your admin.",
  validation_error:
    'The identity provider sent details this server cannot accept for a new account (such as a name or address that is too long). Ask your admin.',
  invalid_token: 'The sign-in link has expired or was already used. Start again from this page.',
  // The provider's own OAuth refusals, passed on as it said them.
  login_required:
    'The identity provider asks you to sign in there first. Try again and sign in when it asks.',
  consent_required:
    'The identity provider needs your consent to share your address with Engram. Try again and allow it.',
  interaction_required: 'The identity provider needs you to do something there first. Try again.',
  unauthorized_client:
    'The identity provider does not let this server sign people in yet. Ask your admin to check the set-up.',
  invalid_request: 'The identity provider refused the sign-in request. Ask your admin to test the set-up.',
  invalid_scope: 'The identity provider refused the sign-in request. Ask your admin to test the set-up.',
  server_error: 'The identity provider ran into an error. Try again later.',
  temporarily_unavailable: 'The identity provider is busy or down for the moment. Try again later.',
  internal_error: 'Something went wrong on the server while signing you in. Try again in a moment.',
}

/** The codes that have a sentence of their own (tests check the server's codes against it). */
export const KNOWN_SIGN_IN_ERRORS: readonly string[] = Object.keys(MESSAGES)

/** The sentence for a failed provider sign-in's `error` code. */
export function signInErrorMessage(code: string): string {
  return (
    MESSAGES[code] ??
    `Signing in through the identity provider did not work (${code}). Try again; if it keeps happening, tell your admin this code.`
  )
}
