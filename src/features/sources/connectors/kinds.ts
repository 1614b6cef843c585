import type { ConnectorKind, SourceKind } from './connector'
import { folderKind } from './folder'
import { gdriveKind } from './gdrive'
import { s3Kind } from './s3'
import { sharepointKind } from './sharepoint'

/** Every kind of source this server can connect to, by kind. */
export function connectorKinds(): ReadonlyMap<SourceKind, ConnectorKind> {
  const kinds: ConnectorKind[] = [s3Kind, folderKind, gdriveKind, sharepointKind]
  return new Map(kinds.map((k) => [k.kind, k]))
}
