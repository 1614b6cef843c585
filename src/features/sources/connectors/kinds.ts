import type { ConnectorKind, SourceKind } from './connector'
import { gdriveKind } from './gdrive'
import { sharepointKind } from './sharepoint'

/** Every kind of source this server can connect to, by kind. */
export function connectorKinds(): ReadonlyMap<SourceKind, ConnectorKind> {
  const kinds: ConnectorKind[] = [gdriveKind, sharepointKind]
  return new Map(kinds.map((k) => [k.kind, k]))
}
