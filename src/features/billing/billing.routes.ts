import { readBody } from '../../platform/http/body'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import {
  BillingPortalResp,
  BillingStatusResp,
  ChangePlanReq,
  ChangePlanResp,
  CheckoutReq,
  CheckoutResp,
  WebhookResp,
} from './billing.schemas'
import type { BillingService } from './billing.service'

const TAGS = ['billing']

/** Stripe's events are a few kilobytes; anything near this is not one. */
export const MAX_WEBHOOK_BYTES = 256 * 1024

/** `/billing/*` (spec, Billing, plans): status for members; checkout, plan changes, portal for admins; the webhook for Stripe. */
export function billingRoutes(billing: BillingService): RouteDef[] {
  // Legal acceptance, then billing being on, are answered before the body is read (spec).
  const purchase = ({ principal }: { principal: { workspaceId: string } | null }) =>
    billing.gatePurchase(principal?.workspaceId as string)
  return [
    defineRoute({
      method: 'GET',
      path: '/billing/status',
      auth: 'bearer',
      summary: "The workspace's plan, its mirrored subscription and whether billing is on",
      description:
        'Always 200, billing on or off. Times are RFC 3339; null when the workspace has no subscription.',
      tags: TAGS,
      response: BillingStatusResp,
      handler: ({ principal }) => billing.status(principal.workspaceId),
    }),
    defineRoute({
      method: 'POST',
      path: '/billing/checkout',
      auth: 'admin',
      scope: 'admin',
      summary: 'Open a hosted Stripe checkout for a plan and term (a card is always required)',
      description:
        'Refusals in order: 403 `legal_acceptance_required` (before the body is read), 503 `billing_disabled`, 422 on the body or a plan not on sale for the term, 409 `subscription_exists` when the workspace has a live subscription (use change-plan), 409 `billing_in_progress` (Retry-After) when another checkout of the workspace goes on on another server for more than five seconds. The workspace moves to the plan when Stripe confirms (webhook).',
      tags: TAGS,
      precondition: purchase,
      body: CheckoutReq,
      response: CheckoutResp,
      errors: [
        'legal_acceptance_required',
        'billing_disabled',
        'subscription_exists',
        'billing_in_progress',
        'payment_provider_failed',
      ],
      handler: ({ principal, body, request }) =>
        billing.checkout(principal.workspaceId, body.tier, body.term, request.headers.get('idempotency-key')),
    }),
    defineRoute({
      method: 'POST',
      path: '/billing/change-plan',
      auth: 'admin',
      scope: 'admin',
      summary:
        "Change the subscription's plan or term: an upgrade now with proration, anything else at the period end",
      description:
        'Same refusal order as checkout. No live subscription: 409 `checkout_required`. The plan and term it is on already: 409 `conflict`, unless a downgrade is waiting, which is then dropped. An upgrade (more a month) is invoiced prorated at once and moves the workspace now; a downgrade is scheduled for the end of the paid period and shown as `pending_change` until then.',
      tags: TAGS,
      precondition: purchase,
      body: ChangePlanReq,
      response: ChangePlanResp,
      errors: [
        'legal_acceptance_required',
        'billing_disabled',
        'checkout_required',
        'conflict',
        'payment_provider_failed',
      ],
      handler: ({ principal, body, request }) =>
        billing.changePlan(
          principal.workspaceId,
          body.tier,
          body.term,
          request.headers.get('idempotency-key'),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/billing/portal',
      auth: 'admin',
      scope: 'admin',
      summary:
        "A Stripe billing portal session for the workspace's payment methods, invoices and cancellation",
      description:
        'Not gated by legal acceptance. Billing off: 503. No billing account yet: 409 `no_billing_account`.',
      tags: TAGS,
      response: BillingPortalResp,
      errors: ['billing_disabled', 'no_billing_account', 'payment_provider_failed'],
      handler: ({ principal }) => billing.portal(principal.workspaceId),
    }),
    defineRoute({
      method: 'POST',
      path: '/billing/webhook',
      auth: 'none',
      summary:
        "Stripe's events (subscriptions, checkouts, invoices, schedules), authenticated by their signature",
      description:
        'No bearer credential: the `Stripe-Signature` header must match the raw body with the webhook signing secret. Bad or absent: 400 `invalid_signature`, nothing written. Every verified event is answered 200, ignored and failed ones included; an event already applied is not applied again. An event whose customer another server is working on for more than five seconds is answered 409 `billing_in_progress` with nothing written, so that Stripe sends it again.',
      tags: TAGS,
      bodyKind: 'stream',
      maxBodyBytes: MAX_WEBHOOK_BYTES,
      idempotent: false,
      precondition: () => void billing.ensureEnabled(),
      response: WebhookResp,
      errors: ['billing_disabled', 'invalid_signature', 'billing_in_progress'],
      handler: async ({ request }) => {
        const bytes = await readBody(request, MAX_WEBHOOK_BYTES)
        const { outcome } = await billing.receive(bytes, request.headers.get('stripe-signature'))
        return { received: true, outcome }
      },
    }),
  ]
}
