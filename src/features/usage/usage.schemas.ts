import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const Period = namedObject('Period', {
  start: Type.String({ description: 'First day (YYYY-MM-DD, UTC).' }),
  end: Type.String({ description: 'Last day (YYYY-MM-DD, UTC), today.' }),
  days: Type.Integer(),
})

const Totals = namedObject('Totals', {
  queries: Type.Integer({ description: 'Questions answered in the period.' }),
  bases: Type.Integer(),
  documents: Type.Integer(),
  storage_bytes: Type.Integer(),
  members: Type.Integer(),
  api_keys: Type.Integer({ description: 'Keys neither revoked nor expired.' }),
})

export const UsageResp = namedObject('UsageResp', {
  period: Period,
  totals: Totals,
  bases: Type.Array(
    Type.Object({
      corpus_id: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
      queries: Type.Integer(),
      documents: Type.Integer(),
      storage_bytes: Type.Integer(),
    }),
    { description: 'Per-base breakdown; empty when there are no bases.' },
  ),
  daily: Type.Array(Type.Object({ date: Type.String(), queries: Type.Integer() }), {
    description: 'One entry per day of the period, oldest first, zeros included.',
  }),
})

const Limit = Type.Union([Type.Integer(), Type.Null()], { description: 'null: no cap.' })

export const BillingResp = namedObject('BillingResp', {
  plan: Type.String(),
  billing_enabled: Type.Boolean(),
  period: Period,
  limits: Type.Object({
    bases: Limit,
    documents: Limit,
    queries_per_month: Limit,
    seats: Limit,
    storage_bytes: Limit,
  }),
  usage: Totals,
  estimated_cost: Type.Object({
    amount: Type.Number(),
    currency: Type.String(),
  }),
})
