/**
 * Workspace administration (admins): invite someone, the members with their roles (make admin,
 * step down, remove), and the invitations not yet accepted.
 */
import { useState } from 'preact/hooks'
import { listMembers, removeMember, setRole } from '../api/admin'
import { loadMe } from '../api/auth'
import { me } from '../api/session'
import type { Member, Role } from '../api/types'
import { InviteForm } from '../components/invite-form'
import { Invites } from '../components/invites-table'
import { MembersTable } from '../components/members-table'
import { Async, Confirm, ErrorBox, PageHeader } from '../components/ui'
import { useAction } from '../lib/action'
import { useLoad } from '../lib/use-load'
import '../styles/accounts.css'

const LAST_ADMIN_RULE =
  'A workspace always keeps at least one admin: the only admin cannot be demoted or removed until another member is made admin. Nobody can remove themself.'

/** Workspace administration: members, their roles and removal, and invitations. */
export function Members() {
  const load = useLoad((signal) => listMembers(signal), [])
  const [removing, setRemoving] = useState<Member | null>(null)
  const [steppingDown, setSteppingDown] = useState<Member | null>(null)
  const selfId = me.value?.id

  const roleChange = useAction(async (m: Member, role: Role) => {
    setSteppingDown(null)
    try {
      await setRole(m.id, role)
      // Stepping down from admin: the console follows at once (the page is then for admins only).
      if (m.id === selfId) await loadMe()
    } finally {
      load.reload()
    }
  })
  const removal = useAction(async (m: Member) => {
    await removeMember(m.id)
    setRemoving(null)
    load.reload()
  })
  const busy = roleChange.busy || removal.busy

  return (
    <>
      <PageHeader title="Members" lead="Who can use this workspace, and who administers it." />
      <div class="stack">
        <InviteForm onInvited={load.reload} />
        <section aria-labelledby="members-h" class="section-gap">
          <h2 id="members-h">Members</h2>
          <p class="hint">{LAST_ADMIN_RULE}</p>
          <ErrorBox error={roleChange.error} />
          <Async load={load}>
            {(data) => (
              <MembersTable
                members={data.members}
                selfId={selfId}
                busy={busy}
                onRole={(x, role) => (x.id === selfId ? setSteppingDown(x) : roleChange.run(x, role))}
                onRemove={(x) => {
                  removal.reset()
                  roleChange.reset()
                  setRemoving(x)
                }}
              />
            )}
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
        onConfirm={() => steppingDown && roleChange.run(steppingDown, 'member')}
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
        error={removal.error}
        onConfirm={() => removing && removal.run(removing)}
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
