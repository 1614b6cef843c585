/** The audit log's rows as a table: time, action, actor, target, address, and the row's facts. */
import type { AuditEntry } from '../api/types'
import { TableScroll } from './table-scroll'
import { Time } from './ui'

/** `user usr_1`, `api_key key_2`, `system`. */
function who(type: string | null, id: string | null): string {
  if (!type) return '—'
  return id ? `${type} ${id}` : type
}

/** A row's facts, `key: value` a line; nested values as JSON. */
function facts(details: AuditEntry['details']): string {
  return Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join('; ')
}

/** The table of audit rows, newest first, as the server answered them. */
export function AuditTable(props: { entries: AuditEntry[]; label: string }) {
  return (
    <TableScroll label={props.label}>
      <table class="audit-table">
        <caption class="visually-hidden">{props.label}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Target</th>
            <th scope="col">Address</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((e) => (
            <tr key={e.id} data-seq={e.seq}>
              <td>
                <Time iso={e.created_at} />
              </td>
              <td>
                <code>{e.action}</code>
              </td>
              <td>{who(e.actor_type, e.actor_id)}</td>
              <td>{who(e.target_type, e.target_id)}</td>
              <td>{e.ip ?? <span class="muted">—</span>}</td>
              <td class="audit-details small">{facts(e.details)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  )
}
