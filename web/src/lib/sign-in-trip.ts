/**
 * What a sign-in through a provider (Google, the workspace's SSO) carries across the trip away from
 * the console and back: the page to return to, and the link ticket the server hands over when the
 * provider's address belongs to a password account. Both are kept in `sessionStorage` (this tab
 * only, gone with it), as the session itself is; the ticket is spent or forgotten as soon as the
 * link page is done with it.
 */

const RETURN = 'engram.return_to'
const TICKET = 'engram.link_ticket'

/** The signed-in page to open after the provider sends the visitor back. */
export function keepReturnPath(path: string): void {
  try {
    sessionStorage.setItem(RETURN, path)
  } catch {
    // Storage refused (a private mode): the visitor lands on the bases instead.
  }
}

/** The page kept before leaving for the provider (once), else the list of bases. */
export function takeReturnPath(): string {
  let path: string | null = null
  try {
    path = sessionStorage.getItem(RETURN)
    sessionStorage.removeItem(RETURN)
  } catch {
    // As above.
  }
  // Only a console page: a kept value is never a way to send the visitor elsewhere.
  return path?.startsWith('/console/') && !path.startsWith('//') ? path : '/console/bases'
}

/** Keeps the link ticket of a hand-off for the link page. */
export function keepLinkTicket(ticket: string): void {
  try {
    sessionStorage.setItem(TICKET, ticket)
  } catch {
    // Without storage the link page says the sign-in has to start again.
  }
}

/** The kept link ticket, if any. */
export function linkTicket(): string | null {
  try {
    return sessionStorage.getItem(TICKET)
  } catch {
    return null
  }
}

/** Forgets the link ticket (linked, refused for good, or abandoned). */
export function forgetLinkTicket(): void {
  try {
    sessionStorage.removeItem(TICKET)
  } catch {
    // Nothing kept.
  }
}
