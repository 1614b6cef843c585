import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const Period = namedObject('Period', {
  start: Type.String({ description: 'First day (YYYY-MM-DD, UTC).' }),
  end: Type.String({ description: 'Last day (YYYY-MM-DD, UTC), today.' }),
  days: Type.Integer(),
})

const PEOPLE =
  'Questions people and their applications asked (the console, the API, MCP); the load the scale test and compare send to measure the strategies is counted apart.'
const LOAD_TEST = 'Questions the scale test sent as load.'
const COMPARE = 'Questions the compare and economics pages asked to measure the strategies.'
const UP = 'Answers rated helpful (thumbs up, `POST /corpora/{id}/feedback`).'
const DOWN = 'Answers rated not helpful (thumbs down, `POST /corpora/{id}/feedback`).'

const Totals = namedObject('Totals', {
  queries: Type.Integer({ description: `${PEOPLE} In the period.` }),
  load_test_queries: Type.Integer({ description: LOAD_TEST }),
  compare_queries: Type.Integer({ description: COMPARE }),
  feedback_up: Type.Integer({ description: `${UP} In the period.` }),
  feedback_down: Type.Integer({ description: `${DOWN} In the period.` }),
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
      queries: Type.Integer({ description: PEOPLE }),
      load_test_queries: Type.Integer({ description: LOAD_TEST }),
      compare_queries: Type.Integer({ description: COMPARE }),
      feedback_up: Type.Integer({ description: UP }),
      feedback_down: Type.Integer({ description: DOWN }),
      documents: Type.Integer(),
      storage_bytes: Type.Integer(),
    }),
    { description: 'Per-base breakdown; empty when there are no bases.' },
  ),
  daily: Type.Array(
    Type.Object({
      date: Type.String(),
      queries: Type.Integer({ description: PEOPLE }),
      load_test_queries: Type.Integer({ description: LOAD_TEST }),
      compare_queries: Type.Integer({ description: COMPARE }),
      feedback_up: Type.Integer({ description: UP }),
      feedback_down: Type.Integer({ description: DOWN }),
    }),
    {
      description: 'One entry per day of the period, oldest first, zeros included.',
    },
  ),
})

const Limit = Type.Union([Type.Integer(), Type.Null()], { description: 'null: no cap.' })

export const BillingResp = namedObject('BillingResp', {
  plan: Type.String({ description: "The workspace's plan id (GET /plans)." }),
  plan_name: Type.String(),
  billing_enabled: Type.Boolean(),
  period: Period,
  limits: Type.Object(
    {
      bases: Limit,
      documents: Limit,
      queries_per_month: Limit,
      seats: Limit,
      storage_bytes: Limit,
      api_keys: Limit,
    },
    { description: "The plan's caps." },
  ),
  used: Type.Object(
    {
      bases: Type.Integer(),
      documents: Type.Integer(),
      queries_per_month: Type.Integer({ description: 'Questions people asked this calendar month (UTC).' }),
      seats: Type.Integer({ description: 'Members.' }),
      storage_bytes: Type.Integer(),
      api_keys: Type.Integer(),
    },
    { description: 'Use against each cap of `limits`, now.' },
  ),
  usage: Totals,
  estimated_cost: Type.Object(
    {
      amount: Type.Number(),
      currency: Type.String(),
    },
    {
      description:
        "The plan's monthly price plus its rate card's metered prices for this month's questions and stored bytes so far.",
    },
  ),
})
