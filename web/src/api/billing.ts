/**
 * The plan and billing routes the Plan page calls: the plans on offer (public), the workspace's
 * plan with its use (admin), and the billing status, checkout, plan change and portal.
 */
import { http, ok, publicHttp } from './client'
import type { components } from './openapi.gen'

type Schemas = components['schemas']
/** A plan on offer: prices per month and year, caps (null: unlimited). */
export type Plan = Schemas['Plan']
export type PlanCaps = Schemas['PlanCaps']
export type CapName = keyof PlanCaps
/** The workspace's plan, its caps, use against them and the period's estimated cost. */
export type Billing = Schemas['BillingResp']

/** The plans this server offers. */
export async function listPlans(signal?: AbortSignal): Promise<Plan[]> {
  return (await ok(publicHttp.GET('/v1/plans', { signal }))).plans
}

/** The workspace's plan, caps and use (admins). */
export function getBilling(signal?: AbortSignal): Promise<Billing> {
  return ok(http.GET('/v1/admin/billing', { signal }))
}

/** The workspace's subscription as billing mirrors it, and whether billing is on at all. */
export type BillingStatus = Schemas['BillingStatusResp']
/** A plan change's answer: applied now or at the period's end. */
export type PlanChange = Schemas['ChangePlanResp']
type Term = Schemas['CheckoutReq']['term']

/** The workspace's billing status (always answers, billing on or off). */
export function getBillingStatus(signal?: AbortSignal): Promise<BillingStatus> {
  return ok(http.GET('/v1/billing/status', { signal }))
}

/** Starts a checkout for a paid plan; answers the payment provider's page to go to. */
export function startCheckout(tier: string, term: Term): Promise<Schemas['CheckoutResp']> {
  return ok(http.POST('/v1/billing/checkout', { body: { tier, term } }))
}

/** Moves the subscription to another plan or term: now (prorated) or at the period's end. */
export function changePlan(tier: string, term: Term): Promise<PlanChange> {
  return ok(http.POST('/v1/billing/change-plan', { body: { tier, term } }))
}

/** A session of the payment provider's billing portal; answers its url. */
export function openPortal(): Promise<Schemas['BillingPortalResp']> {
  return ok(http.POST('/v1/billing/portal'))
}
