import type { Static } from '@sinclair/typebox'
import { actorOf } from '../../platform/auth/principal'
import { fail } from '../../platform/errors/errors'
import { exportResponse } from '../../platform/http/export-stream'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import type { AuditFilter } from './audit.repo'
import { AuditEntryResp, AuditExportQuery, AuditQuery, AuditVerifyResp } from './audit.schemas'
import type { AuditService } from './audit.service'

const FILTERS =
  "Filters: `actor` (a user or key id), `action` (`api_key.revoked`, or a family: `auth.*`), `target` (an id), `since` (at or after) and `until` (before), RFC 3339; all must hold. Another workspace's rows are never shown."

/** The columns of an export, in the order of `AuditEntryResp`. */
const COLUMNS = Object.keys(AuditEntryResp.properties)

/** `/audit...` (spec, Audit and exports): the workspace's log, its receipts, exports and chain check. Admins only. */
export function auditRoutes(audit: AuditService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/audit',
      auth: 'admin',
      scope: 'admin',
      summary: "The workspace's audit log, newest first",
      description: `Every security-relevant action: sign-ins (and refused ones), passwords, single sign-on, keys, members and invitations, connections, deletions, downloads and exports. Each row carries its place in the workspace's hash chain (\`seq\`, \`prev_hash\`, \`hash\`). ${FILTERS}`,
      tags: ['audit'],
      query: AuditQuery,
      list: true,
      response: AuditEntryResp,
      handler: ({ principal, query, page }) => audit.list(principal.workspaceId, filterOf(query), page),
    }),
    defineRoute({
      method: 'GET',
      path: '/audit/deletions',
      auth: 'admin',
      scope: 'admin',
      summary: 'The deletion receipts, newest first',
      description: `One row per deleted file (\`document.deleted\`: base, file name, rows, \`via\` api, push or source, whether a build was running) and per deleted base (\`corpus.deleted\`: name, documents, rows, bytes). ${FILTERS}`,
      tags: ['audit'],
      query: AuditQuery,
      list: true,
      response: AuditEntryResp,
      handler: ({ principal, query, page }) => audit.deletions(principal.workspaceId, filterOf(query), page),
    }),
    defineRoute({
      method: 'GET',
      path: '/audit/export',
      auth: 'admin',
      scope: 'admin',
      summary: 'Export the audit log (CSV or JSON Lines), streamed',
      description: `The rows written before the export began, oldest first, with their hashes, so the chain can be checked away from the server. Streamed a batch at a time (bounded memory, whatever the size). The export is itself audited (\`audit.exported\`). ${FILTERS}`,
      tags: ['audit'],
      query: AuditExportQuery,
      produces: 'text/csv',
      response: AuditEntryResp,
      handler: async ({ principal, query, ip, requestId }) => {
        const filter = filterOf(query)
        const format = query.format ?? 'jsonl'
        const { workspaceId } = principal
        const rows = await audit.exportRows(workspaceId, filter)
        const actor = actorOf(principal, ip, requestId)
        await audit.exported('audit.exported', workspaceId, actor, { format, ...query })
        return exportResponse(format, COLUMNS, rows, `audit-${workspaceId}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/audit/verify',
      auth: 'admin',
      scope: 'admin',
      summary: "Check the workspace's audit hash chain",
      description:
        'Walks every row in chain order: each must link to the row before (`prev_hash`), hold the next place (`seq`) and match its own hash. `first_broken` names the first row that does not (an altered, removed or inserted row), `head` the last sound row.',
      tags: ['audit'],
      response: AuditVerifyResp,
      handler: ({ principal }) => audit.verify(principal.workspaceId),
    }),
  ]
}

/** The filter a query asks for; an empty window (`until` not after `since`) is a 422. */
export function filterOf(q: Static<typeof AuditQuery>): AuditFilter {
  const since = q.since === undefined ? undefined : Date.parse(q.since)
  const until = q.until === undefined ? undefined : Date.parse(q.until)
  if (since !== undefined && until !== undefined && until <= since) {
    throw fail('validation_error', '`until` must be after `since`.', [
      { loc: ['query', 'until'], msg: 'Must be after since', type: 'value_error' },
    ])
  }
  const f: AuditFilter = {}
  if (q.actor !== undefined) f.actor = q.actor
  if (q.action !== undefined) f.action = q.action
  if (q.target !== undefined) f.target = q.target
  if (since !== undefined) f.since = since
  if (until !== undefined) f.until = until
  return f
}
