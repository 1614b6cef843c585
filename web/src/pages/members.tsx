import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { Invite, Member, MembersResp, Role } from '../api/accounts'
import { api } from '../api/client'
import { loadMe, me } from '../api/session'
import type { LinkResp } from '../api/types'
import { CopyLink } from '../components/copy-link'
import { ServerLog } from '../components/link-delivery'
import { Async, Button, Confirm, Empty, ErrorBox, Field, Note, PageHeader, Time } from '../components/ui'
import { useLoad } from '../lib/use-load'
import '../styles/accounts.css'

const LAST_ADMIN_RULE =
  'A workspace always keeps at least one admin: the only admin cannot be demoted or removed until another member is made admin. Nobody can remove themself.'

/** Invites an address; says where the link went: mailed, in the server log, or here (email turned off). */
function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const [sent, setSent] = useState<{ email: string; resp: LinkResp } | null>(null)
  const onSubmit = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const f = new FormData(form)
    const email = String(f.get('email'))
    setBusy(true)
    setError(null)
    setSent(null)
    try {
      const resp = await api<LinkResp>('/admin/invites', { json: { email, role: String(f.get('role')) } })
      setSent({ email, resp })
      form.reset()
      onInvited()
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="card invite-card" aria-labelledby="invite-h">
      <h2 id="invite-h">Invite someone</h2>
      <form class="inline-form" onSubmit={onSubmit}>
        <Field label="Email address" type="email" name="email" required autocomplete="off" />
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </div>
        <Button type="submit" variant="primary" busy={busy}>
          Send invitation
        </Button>
      </form>
      <div class="stack invite-result">
        <ErrorBox error={error} />
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

/**
 * One member's row. Role changes are buttons, not a select, so arrowing through a list never sends
 * a change; an action the rules forbid is not offered, and the row says why instead.
 */
function MemberRow(props: {
  m: Member
  self: boolean
  onlyAdmin: boolean
  onRole: (m: Member, role: Role) => void
  onRemove: (m: Member) => void
  busy: boolean
}) {
  const { m, self, onlyAdmin } = props
  const locked = onlyAdmin && m.role === 'admin'
  const next: Role = m.role === 'admin' ? 'member' : 'admin'
  const why = locked
    ? `${self ? 'You are' : `${m.name} is`} the only admin: make someone else admin first.`
    : self
      ? 'You cannot remove yourself.'
      : null
  return (
    <tr>
      <td>
        {m.name} {self && <span class="badge">you</span>}
        {m.status !== 'active' && <span class="badge badge-warn">deactivated</span>}
      </td>
      <td>{m.email}</td>
      <td>
        <span class={m.role === 'admin' ? 'badge badge-ok' : 'badge'}>
          {m.role === 'admin' ? 'Admin' : 'Member'}
        </span>
      </td>
      <td>
        <Time iso={m.last_login_at} />
      </td>
      <td>
        <div class="row-actions">
          {!locked && (
            <button
              type="button"
              class="btn btn-plain btn-small"
              disabled={props.busy}
              onClick={() => props.onRole(m, next)}
            >
              {next === 'admin'
                ? `Make ${m.name} an admin`
                : self
                  ? 'Step down to member'
                  : `Make ${m.name} a member`}
            </button>
          )}
          {!locked && !self && (
            <button type="button" class="btn btn-danger btn-small" onClick={() => props.onRemove(m)}>
              Remove {m.name}
            </button>
          )}
          {why && <span class="hint">{why}</span>}
        </div>
      </td>
    </tr>
  )
}

/** A table's scrolling box, named by its section's heading. */
function TableBox({ labelledBy, children }: { labelledBy: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: on a narrow screen the box scrolls, and a keyboard can only scroll what takes focus (axe: scrollable-region-focusable).
    <section class="table-wrap" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  )
}

/** Invitations not yet accepted, each withdrawable. */
function Invites({ invites, onChange }: { invites: Invite[]; onChange: () => void }) {
  const [error, setError] = useState<Error | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const revoke = async (inv: Invite) => {
    setBusy(inv.id)
    setError(null)
    try {
      await api(`/admin/invites/${inv.id}`, { method: 'DELETE' })
      onChange()
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(null)
    }
  }
  if (invites.length === 0) {
    return <Empty title="No pending invitations">Invitations appear here until they are accepted.</Empty>
  }
  const now = Date.now()
  return (
    <>
      <ErrorBox error={error} />
      <TableBox labelledBy="invites-h">
        <table class="members-table">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invites.map((inv) => (
              <tr key={inv.id}>
                <td>{inv.email}</td>
                <td>{inv.role === 'admin' ? 'Admin' : 'Member'}</td>
                <td>
                  {Date.parse(inv.expires_at) < now ? (
                    <span class="badge badge-warn">expired</span>
                  ) : (
                    <Time iso={inv.expires_at} />
                  )}
                </td>
                <td>
                  <button
                    type="button"
                    class="btn btn-plain btn-small"
                    disabled={busy === inv.id}
                    aria-busy={busy === inv.id}
                    onClick={() => revoke(inv)}
                  >
                    Revoke<span class="visually-hidden"> the invitation of {inv.email}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
    </>
  )
}

/** Workspace administration: members, their roles and removal, and invitations. */
export function Members() {
  const load = useLoad((signal) => api<MembersResp>('/admin/members', { signal }), [])
  const [error, setError] = useState<Error | null>(null)
  const [busy, setBusy] = useState(false)
  const [removing, setRemoving] = useState<Member | null>(null)
  const [removeError, setRemoveError] = useState<Error | null>(null)
  const selfId = me.value?.id

  const [steppingDown, setSteppingDown] = useState<Member | null>(null)
  const changeRole = async (m: Member, role: Role) => {
    setSteppingDown(null)
    setBusy(true)
    setError(null)
    try {
      await api<Member>(`/admin/members/${m.id}`, { method: 'PATCH', json: { role } })
      // Stepping down from admin: the console follows at once (the page is then for admins only).
      if (m.id === selfId) await loadMe()
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
      load.reload()
    }
  }
  const remove = async () => {
    if (!removing) return
    setBusy(true)
    setRemoveError(null)
    try {
      await api(`/admin/members/${removing.id}`, { method: 'DELETE' })
      setRemoving(null)
      load.reload()
    } catch (err) {
      setRemoveError(err as Error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <PageHeader title="Members" lead="Who can use this workspace, and who administers it." />
      <div class="stack">
        <InviteForm onInvited={load.reload} />
        <section aria-labelledby="members-h" class="section-gap">
          <h2 id="members-h">Members</h2>
          <p class="hint">{LAST_ADMIN_RULE}</p>
          <ErrorBox error={error} />
          <Async load={load}>
            {(data) => {
              const admins = data.members.filter((m) => m.role === 'admin' && m.status === 'active').length
              return (
                <TableBox labelledBy="members-h">
                  <table class="members-table">
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Email</th>
                        <th scope="col">Role</th>
                        <th scope="col">Last sign-in</th>
                        <th scope="col">
                          <span class="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.members.map((m) => (
                        <MemberRow
                          key={m.id}
                          m={m}
                          self={m.id === selfId}
                          onlyAdmin={admins <= 1}
                          busy={busy}
                          onRole={(x, role) => (x.id === selfId ? setSteppingDown(x) : changeRole(x, role))}
                          onRemove={(x) => {
                            setRemoveError(null)
                            setError(null)
                            setRemoving(x)
                          }}
                        />
                      ))}
                    </tbody>
                  </table>
                </TableBox>
              )
            }}
          </Async>
        </section>
        <section aria-labelledby="invites-h" class="section-gap">
          <h2 id="invites-h">Pending invitations</h2>
          {load.data && <Invites invites={load.data.invites} onChange={load.reload} />}
        </section>
      </div>
      <Confirm
        open={steppingDown !== null}
        title="Step down as admin?"
        confirmLabel="Step down to member"
        busy={busy}
        onConfirm={() => steppingDown && changeRole(steppingDown, 'member')}
        onCancel={() => setSteppingDown(null)}
      >
        <p>
          You keep your account and your documents, but lose this page, API keys and usage at once. Another
          admin can make you admin again.
        </p>
      </Confirm>
      <Confirm
        open={removing !== null}
        title={`Remove ${removing?.name ?? ''}?`}
        confirmLabel={`Remove ${removing?.name ?? ''}`}
        busy={busy}
        error={removeError}
        onConfirm={remove}
        onCancel={() => setRemoving(null)}
      >
        <p>
          {removing?.name} ({removing?.email}) loses access to this workspace at once; their sessions end. The
          API keys they made keep working until an admin revokes them. You can invite the address again later.
        </p>
      </Confirm>
    </>
  )
}
