/** The members page's invitation form, and where the link it made went. */
import { useState } from 'preact/hooks'
import { invite } from '../api/admin'
import type { LinkResp, Role } from '../api/types'
import { useAction } from '../lib/action'
import { useAuthConfig } from '../lib/auth-config'
import { CopyLink } from './copy-link'
import { ServerLog } from './link-delivery'
import { Button, ErrorBox, Field, Note } from './ui'

/**
 * Without a configured base URL, invitation links start with http://localhost:<port>: they open on
 * the server's machine only, so an invitee elsewhere gets a link that goes nowhere. The server never
 * takes the address from a request (a caller could choose it); whoever runs it has to set it.
 */
function LinkBaseNote() {
  const config = useAuthConfig()
  if (!config || config.base_url_configured) return null
  return (
    <Note kind="warn">
      Invitation links start with <code>{config.link_base_url}</code>, which opens only on the server's own
      machine: this server has no public address set. Whoever runs it sets <code>ENGRAM_BASE_URL</code> to the
      address people use (the one this page was opened at, <code>ENGRAM_BASE_URL={location.origin}</code>, if
      others use it too) and restarts it; links made after that use it.
    </Note>
  )
}

/** Invites an address; says where the link went: mailed, in the server log, or here (email turned off). */
export function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [sent, setSent] = useState<{ email: string; resp: LinkResp } | null>(null)
  const send = useAction(async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const f = new FormData(form)
    const email = String(f.get('email'))
    setSent(null)
    const resp = await invite(email, String(f.get('role')) as Role)
    setSent({ email, resp })
    form.reset()
    onInvited()
  })
  return (
    <section class="card invite-card" aria-labelledby="invite-h">
      <h2 id="invite-h">Invite someone</h2>
      <LinkBaseNote />
      <form class="inline-form" onSubmit={send.run}>
        <Field label="Email address" type="email" name="email" required autocomplete="off" />
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </div>
        <Button type="submit" variant="primary" busy={send.busy}>
          Send invitation
        </Button>
      </form>
      <div class="stack invite-result">
        <ErrorBox error={send.error} />
        {sent?.resp.invite_link && (
          <>
            <Note kind="ok">
              Invitation ready for <strong>{sent.email}</strong>. Email is turned off on this server: send
              them this link yourself. It works once and expires in a few days.
            </Note>
            <CopyLink label="Invitation link" value={sent.resp.invite_link} />
          </>
        )}
        {sent && !sent.resp.invite_link && sent.resp.status === 'sent' && (
          <Note kind="ok">
            {sent.resp.link_delivery === 'server_log' ? (
              <>
                Invitation ready for <strong>{sent.email}</strong>. This server sends no email, so the
                invitation link was written to <ServerLog />: whoever runs the server passes it on to them. It
                works once and expires in a few days.
              </>
            ) : (
              <>
                Invitation emailed to <strong>{sent.email}</strong>: they will find the link in their inbox.
              </>
            )}
          </Note>
        )}
        {sent && sent.resp.status === 'failed' && (
          <Note kind="warn">
            The invitation for <strong>{sent.email}</strong> is recorded, but the email could not be sent.
            Invite the address again to retry.
          </Note>
        )}
      </div>
    </section>
  )
}
