/** The members page's table: each member with their role, last sign-in and what may be done. */
import type { Member, Role } from '../api/types'
import { TableBox } from './table-scroll'
import { Time } from './ui'

/**
 * The members of the workspace. `selfId` is the signed-in user; `busy` disables role changes while
 * one runs. The only active admin can be neither demoted nor removed, and nobody removes themself.
 */
export function MembersTable(props: {
  members: Member[]
  selfId: string | undefined
  busy: boolean
  onRole: (m: Member, role: Role) => void
  onRemove: (m: Member) => void
}) {
  const admins = props.members.filter((m) => m.role === 'admin' && m.status === 'active').length
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
          {props.members.map((m) => (
            <MemberRow
              key={m.id}
              m={m}
              self={m.id === props.selfId}
              onlyAdmin={admins <= 1}
              busy={props.busy}
              onRole={props.onRole}
              onRemove={props.onRemove}
            />
          ))}
        </tbody>
      </table>
    </TableBox>
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
