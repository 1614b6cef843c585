import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })

/** The filters every audit read takes; all must hold. */
export const auditFilterProperties = {
  actor: Type.Optional({
    ...Id,
    description: 'The actor: a user id (`usr_...`) or an API key id (`key_...`).',
  }),
  action: Type.Optional(
    Type.String({
      maxLength: 64,
      pattern: '^[a-z][a-z_]*(\\.[a-z][a-z_]*)*(\\.\\*)?$',
      description: 'An action (`api_key.revoked`), or a family of them (`auth.*`).',
    }),
  ),
  target: Type.Optional({ ...Id, description: 'The target: a document, base, key, user or connection id.' }),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Rows written at or after (RFC 3339).' }),
  ),
  until: Type.Optional(
    Type.String({ format: 'date-time', description: 'Rows written before (RFC 3339); after `since`.' }),
  ),
}

export const AuditQuery = Type.Object(auditFilterProperties)

/** Formats an export is written in. */
export const ExportFormat = Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
  default: 'jsonl',
  description:
    "`jsonl`: one JSON object a line; `csv`: RFC 4180, a header line, cells a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, CR) prefixed with `'`.",
})

export const AuditExportQuery = Type.Object({ ...auditFilterProperties, format: Type.Optional(ExportFormat) })

export const AuditEntryResp = namedObject('AuditEntryResp', {
  id: Type.String(),
  seq: Type.Integer({ description: "Place in the workspace's chain, from 1." }),
  created_at: Type.String({ format: 'date-time' }),
  action: Type.String({ description: 'Dotted action name, e.g. `auth.sign_in`, `document.deleted`.' }),
  actor_type: Type.String({ description: '`user`, `api_key` or `system`.' }),
  actor_id: Type.Union([Type.String(), Type.Null()]),
  target_type: Type.Union([Type.String(), Type.Null()]),
  target_id: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Facts of the action; never a secret.',
  }),
  ip: Type.Union([Type.String(), Type.Null()], { description: "The client's address." }),
  request_id: Type.Union([Type.String(), Type.Null()]),
  prev_hash: Type.Union([Type.String(), Type.Null()], {
    description: "The previous row's `hash`; null for the first row.",
  }),
  hash: Type.String({ description: "Hex SHA-256 of the row's canonical form (docs/governance.md)." }),
})

const ChainPlace = Type.Object({ seq: Type.Integer(), hash: Type.String() })

export const AuditVerifyResp = namedObject('AuditVerifyResp', {
  ok: Type.Boolean({ description: 'Every row links to the one before and matches its hash.' }),
  checked: Type.Integer({ description: 'Rows checked (up to and including the first broken one).' }),
  first_broken: Type.Union(
    [
      Type.Object({
        id: Type.String(),
        seq: Type.Union([Type.Integer(), Type.Null()]),
        reason: Type.Union([
          Type.Literal('hash_mismatch'),
          Type.Literal('prev_hash_mismatch'),
          Type.Literal('seq_gap'),
          Type.Literal('unchained'),
        ]),
      }),
      Type.Null(),
    ],
    { description: 'The first row that breaks the chain, and how; null when none does.' },
  ),
  head: Type.Union([ChainPlace, Type.Null()], {
    description:
      'The last sound row: note it, and a later check that shows an earlier head means rows were cut from the end.',
  }),
})
