import { type Static, Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const Cap = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null: unlimited.' })

/** The caps a plan sets; null is unlimited. */
export const PlanCaps = namedObject('PlanCaps', {
  bases: Cap,
  documents: Cap,
  storage_bytes: Cap,
  queries_per_month: Cap,
  seats: Cap,
  api_keys: Cap,
})

/** The names of the caps, in the order they are shown. */
export const CAP_NAMES = [
  'bases',
  'documents',
  'storage_bytes',
  'queries_per_month',
  'seats',
  'api_keys',
] as const

/** One cap's name. */
export type CapName = (typeof CAP_NAMES)[number]

const Price = Type.Number({ minimum: 0 })
const Rate = Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'null: not charged.' })

/** One plan as `GET /plans` answers it and the plans file holds it. */
export const Plan = namedObject('Plan', {
  id: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,31}$' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  prices: Type.Object({ currency: Type.String({ pattern: '^[a-z]{3}$' }), month: Price, year: Price }),
  caps: PlanCaps,
  rate_card: Type.Object(
    { queries_per_1000: Rate, storage_gb_month: Rate },
    { description: 'Metered prices on top of the monthly price (null: not charged).' },
  ),
  public: Type.Boolean({
    description: 'Offered on the pricing page; false for legacy and negotiated plans.',
  }),
})

/** `GET /plans`: every plan this server knows. */
export const PlansResp = namedObject('PlansResp', { plans: Type.Array(Plan) })

/** A plan, as services hand it around. */
export type PlanDef = Static<typeof Plan>

/** A plan's caps. */
export type Caps = Static<typeof PlanCaps>
