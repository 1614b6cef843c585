/**
 * The console path of a link the API answered (verification, reset, invitation). The API builds
 * links on the configured base URL, which may name this server differently from the address in
 * the browser (localhost against 127.0.0.1, say); the visitor is already on this console, so the
 * link is followed here. Anything that is not a console link is left as it is.
 */
export function consolePath(link: string): string {
  try {
    const u = new URL(link, location.origin)
    return u.pathname.startsWith('/console/') ? u.pathname + u.search : link
  } catch {
    return link
  }
}
