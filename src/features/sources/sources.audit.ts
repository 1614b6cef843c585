import type { Actor } from '../../platform/auth/principal'
import type { Outbox } from '../../platform/events/outbox'
import type { SourceRow } from './sources.repo'

/**
 * Tells a source's change (`source.created`, `.updated`, `.deleted`) for the audit log, inside the
 * change's unit: its base, connection, folder, name and schedule, never a credential. A
 * change made without a caller (none today) is the system's.
 */
export async function tellSourceChange(
  d: { events: Outbox },
  type: 'source.created' | 'source.updated' | 'source.deleted',
  row: SourceRow,
  actor: Actor = { type: 'system', id: null },
  extra: Record<string, unknown> = {},
): Promise<void> {
  const details = {
    corpus_id: row.corpusId,
    connection_id: row.connectionId,
    folder: row.folder,
    name: row.name,
    interval_minutes: row.intervalMinutes,
    ...extra,
  }
  await d.events.publish({
    type,
    workspaceId: row.workspaceId,
    payload: { actor, target: { type: 'source', id: row.id }, details },
  })
}
