/** The members page's pending invitations, each withdrawable. */
import { revokeInvite } from '../api/admin'
import type { Invite } from '../api/types'
import { useAction } from '../lib/action'
import { TableBox } from './table-scroll'
import { Empty, ErrorBox, Time } from './ui'

/** Invitations not yet accepted, each withdrawable. */
export function Invites({ invites, onChange }: { invites: Invite[]; onChange: () => void }) {
  const revoke = useAction(async (inv: Invite) => {
    await revokeInvite(inv.id)
    onChange()
  })
  /** Whether the invitation's button is the one running. */
  const busy = (inv: Invite) => revoke.busy && revoke.args?.[0].id === inv.id
  if (invites.length === 0) {
    return <Empty title="No pending invitations">Invitations appear here until they are accepted.</Empty>
  }
  const now = Date.now()
  return (
    <>
      <ErrorBox error={revoke.error} />
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
                    disabled={busy(inv)}
                    aria-busy={busy(inv)}
                    onClick={() => revoke.run(inv)}
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
