import { type Static, Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { PlanCaps } from '../plans/plans.schemas'

const When = Type.String({ format: 'date-time' })
const MaybeWhen = Type.Union([When, Type.Null()])
const Term = Type.Union([Type.Literal('month'), Type.Literal('year')], {
  description: 'The billing term: monthly or yearly.',
})
const Tier = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'A public plan id with a price for the term (GET /plans).',
})

/** `POST /billing/checkout`: the plan and term to buy. */
export const CheckoutReq = namedObject(
  'CheckoutReq',
  { tier: Tier, term: Term },
  { additionalProperties: false },
)

/** The hosted checkout page to send the browser to. */
export const CheckoutResp = namedObject('CheckoutResp', {
  url: Type.String({ description: "Stripe's hosted checkout page." }),
  session_id: Type.String(),
})

/** `POST /billing/change-plan`: the plan and term to move to. */
export const ChangePlanReq = namedObject(
  'ChangePlanReq',
  { tier: Tier, term: Term },
  { additionalProperties: false },
)

/** What a plan change did: applied now (upgrade) or at the end of the paid period (downgrade). */
export const ChangePlanResp = namedObject('ChangePlanResp', {
  tier: Type.String(),
  term: Term,
  effective: Type.Union([Type.Literal('now'), Type.Literal('period_end')]),
  effective_at: When,
})

/** The billing portal page (payment methods, invoices, cancellation). */
export const BillingPortalResp = namedObject('BillingPortalResp', { url: Type.String() })

/** A downgrade waiting for the end of the paid period. */
const PendingChange = namedObject('PendingChange', { tier: Type.String(), term: Term, effective_at: When })

/** `GET /billing/status`: the billing flag, the workspace's plan and its mirrored subscription. */
export const BillingStatusResp = namedObject('BillingStatusResp', {
  billing_enabled: Type.Boolean(),
  rate_card: Type.Object(
    {
      queries_per_1000: Type.Union([Type.Number(), Type.Null()]),
      storage_gb_month: Type.Union([Type.Number(), Type.Null()]),
    },
    { description: "Metered prices of the workspace's plan (null: not charged)." },
  ),
  portal_available: Type.Boolean({ description: 'Billing is on and the workspace has a billing account.' }),
  tier: Type.String({ description: 'The plan the workspace is on now.' }),
  term: Type.Union([Term, Type.Null()], { description: 'The term of its subscription; null without one.' }),
  subscription_status: Type.Union([Type.String(), Type.Null()], {
    description:
      "Stripe's status, as last mirrored: trialing, active, past_due, unpaid, canceled, incomplete, ...",
  }),
  trial_ends_at: MaybeWhen,
  renews_at: MaybeWhen,
  cancel_at_period_end: Type.Boolean(),
  checkout_required: Type.Boolean({
    description: 'Billing is on and the workspace has no live subscription: buy one through checkout first.',
  }),
  caps: PlanCaps,
  pending_change: Type.Union([PendingChange, Type.Null()]),
})

/** `POST /billing/webhook`: the event was verified and recorded. */
export const WebhookResp = namedObject('BillingWebhookResp', {
  received: Type.Boolean(),
  outcome: Type.Union([Type.Literal('applied'), Type.Literal('ignored'), Type.Literal('failed')]),
})

/** The status answer. */
export type BillingStatus = Static<typeof BillingStatusResp>
