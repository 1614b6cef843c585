import type { LinkDelivery } from '../api/types'
import { Note } from './ui'

// Where a verification, reset or invitation link goes is the server's email setting
// (`link_delivery`, also in /auth/config before anything is sent), never the visitor's choice.
// These words are shared so every page says it the same way.

/** The server's log, with where an operator reads it. */
export function ServerLog() {
  return (
    <>
      the server's log (<code>docker logs &lt;container&gt;</code> or <code>journalctl -u engram</code>, for
      example)
    </>
  )
}

/**
 * Before a link is asked for: where it will go. Nothing is said for a mail server (the usual case);
 * the log and an answered link are worth knowing before the visitor waits for an email.
 */
export function LinkDeliveryHint({ delivery, what }: { delivery: LinkDelivery | undefined; what: string }) {
  if (delivery === 'server_log') {
    return (
      <p class="hint">
        This server sends no email: {what} is written to <ServerLog /> instead, for the person who runs the
        server to pass on.
      </p>
    )
  }
  if (delivery === 'response') {
    return <p class="hint">Email is turned off on this server: {what} is shown on this page.</p>
  }
  return null
}

/**
 * For the operator on the first run: where every link will go, and, when links are answered to
 * anyone (`ENGRAM_EMAIL=disabled`), that this lets anyone who reaches the server take over accounts.
 */
export function FirstRunLinkNote({ delivery }: { delivery: LinkDelivery | undefined }) {
  if (delivery === 'server_log') {
    return (
      <Note>
        This server sends no email (<code>ENGRAM_EMAIL=log</code>): password-reset and invitation links are
        written to its log for you to pass on, for example with <code>docker logs &lt;container&gt;</code>.
        Set <code>ENGRAM_EMAIL</code> to an <code>smtp://</code> URL to mail them.
      </Note>
    )
  }
  if (delivery === 'response') {
    return (
      <Note kind="warn">
        Email is disabled (<code>ENGRAM_EMAIL=disabled</code>): password-reset links are shown to whoever
        asks, so anyone who can reach this server can take over any account. Set <code>ENGRAM_EMAIL=log</code>{' '}
        or an <code>smtp://</code> URL before others can reach it.
      </Note>
    )
  }
  return null
}
