import { validationFailed } from '../../platform/errors/errors'
import { apiErrorOf } from './sources.errors'
import type { SourceRow } from './sources.repo'
import { asSourceError, type SyncDeps } from './sources.sync'

/** What a source is made or changed with. */
export interface SourceInput {
  connection_id: string
  folder: string
  name?: string
  path_prefix?: string
  interval_minutes?: number | null
}

/** The fields of a source, checked: connection of the workspace, folder valid for its kind, schedule. */
export async function checkedSource(d: SyncDeps, workspaceId: string, input: SourceInput) {
  const connection = await d.connections.get(workspaceId, input.connection_id)
  const kind = d.connections.kindOf(connection.kind)
  let folder: string
  try {
    folder = await kind.folder(input.folder, d.env, workspaceId)
  } catch (e) {
    const reason = asSourceError(e)
    throw reason ? apiErrorOf(reason) : e
  }
  const interval = input.interval_minutes ?? null
  const min = d.config.min_interval_minutes
  if (interval !== null && interval < min) {
    throw validationFailed([
      {
        loc: ['body', 'interval_minutes'],
        msg: `The shortest interval is ${min} minutes.`,
        type: 'too_small',
      },
    ])
  }
  return {
    connectionId: connection.id,
    folder,
    name: input.name?.trim() || `${connection.name}: ${folder || '/'}`.slice(0, 120),
    pathPrefix: d.ingest.documentPrefix(input.path_prefix),
    intervalMinutes: interval,
  }
}

/** A new source's row: its checked fields, nothing run or scheduled yet. */
export function newSourceRow(
  id: string,
  workspaceId: string,
  corpusId: string,
  mode: SourceRow['mode'],
  fields: Awaited<ReturnType<typeof checkedSource>>,
  now: number,
): SourceRow {
  return {
    id,
    workspaceId,
    corpusId,
    mode,
    ...fields,
    cursor: null,
    currentRunId: null,
    nextJobId: null,
    nextSyncAt: null,
    lastRunId: null,
    createdAt: now,
    updatedAt: now,
  }
}
