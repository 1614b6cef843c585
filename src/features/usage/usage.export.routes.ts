import { Type } from '@sinclair/typebox'
import { actorOf } from '../../platform/auth/principal'
import { type ValidationIssue, validationFailed } from '../../platform/errors/errors'
import { exportResponse } from '../../platform/http/export-stream'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { USAGE_COLUMNS, type UsageExport } from './usage.export'

const Day = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    maxLength: 10,
    description: `${description} (YYYY-MM-DD, UTC).`,
  })

export const UsageExportQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
      default: 'jsonl',
      description:
        "`jsonl`: one JSON object a line; `csv`: RFC 4180 with a header line (cells a spreadsheet would read as a formula are prefixed with `'`).",
    }),
  ),
  from: Type.Optional(Day('First day, inclusive; the first day counted when absent')),
  to: Type.Optional(Day('Last day, inclusive; the last day counted when absent')),
})

/** `GET /usage/export` (spec, Audit and exports): the daily counters, streamed. Admins only. */
export function usageExportRoutes(exports: UsageExport): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/usage/export',
      auth: 'admin',
      scope: 'admin',
      summary: 'Export daily usage per base (CSV or JSON Lines), streamed',
      description:
        'One line per UTC day and base with questions counted that day: `queries` (people and their applications), `load_test_queries` (the scale test), `compare_queries` (compare and economics); `corpus_id` null for counts that belong to no base. Oldest day first, streamed a batch at a time. `from` after `to`, or a day that does not exist, is a 422. The export is audited (`usage.exported`).',
      tags: ['admin'],
      query: UsageExportQuery,
      produces: 'text/csv',
      response: Type.Object({
        day: Type.String(),
        corpus_id: Type.Union([Type.String(), Type.Null()]),
        queries: Type.Integer(),
        load_test_queries: Type.Integer(),
        compare_queries: Type.Integer(),
      }),
      handler: async ({ principal, query, ip, requestId }) => {
        const range = rangeOf(query.from, query.to)
        const format = query.format ?? 'jsonl'
        const actor = actorOf(principal, ip, requestId)
        const rows = await exports.rows(principal.workspaceId, range, actor, format)
        return exportResponse(format, USAGE_COLUMNS, rows, `usage-${principal.workspaceId}`)
      },
    }),
  ]
}

/** The day range asked for: each a real calendar day, `from` not after `to`; else a 422 naming the field. */
function rangeOf(from: string | undefined, to: string | undefined): { from: string; to: string } {
  const issues: ValidationIssue[] = []
  for (const [field, day] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (day !== undefined && !realDay(day)) {
      issues.push({ loc: ['query', field], msg: 'Not a calendar day', type: 'value_error' })
    }
  }
  if (issues.length === 0 && from !== undefined && to !== undefined && from > to) {
    issues.push({ loc: ['query', 'to'], msg: 'Must not be before from', type: 'value_error' })
  }
  if (issues.length > 0) throw validationFailed(issues)
  return { from: from ?? '0000-01-01', to: to ?? '9999-12-31' }
}

/** Whether YYYY-MM-DD names a day of the calendar (not 2026-02-30). */
function realDay(day: string): boolean {
  const d = new Date(`${day}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === day
}
