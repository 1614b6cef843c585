// The Stripe objects the stand-in keeps, with the fields of the SDK's types (stripe v23, API
// 2026-10-28) that a subscription billing integration reads. Each is a subset of the SDK type of
// the same name: the JSON the stand-in returns parses into that type.

/** A Stripe list object. */
export interface StripeList<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  url: string
}

export type Metadata = Record<string, string>

export interface StripeCustomer {
  id: string
  object: 'customer'
  created: number
  email: string | null
  name: string | null
  description: string | null
  metadata: Metadata
  balance: number
  currency: string | null
  livemode: false
}

export interface StripeProduct {
  id: string
  object: 'product'
  active: boolean
  created: number
  updated: number
  name: string
  description: string | null
  default_price: string | null
  metadata: Metadata
  type: 'service'
  livemode: false
}

export interface StripeRecurring {
  interval: 'day' | 'week' | 'month' | 'year'
  interval_count: number
  usage_type: 'licensed'
  meter: null
  trial_period_days: number | null
}

export interface StripePrice {
  id: string
  object: 'price'
  active: boolean
  created: number
  currency: string
  unit_amount: number
  unit_amount_decimal: string
  product: string
  recurring: StripeRecurring | null
  type: 'recurring' | 'one_time'
  lookup_key: string | null
  nickname: string | null
  metadata: Metadata
  billing_scheme: 'per_unit'
  tax_behavior: 'unspecified'
  tiers_mode: null
  transform_quantity: null
  livemode: false
}

export interface StripeCheckoutSession {
  id: string
  object: 'checkout.session'
  mode: 'subscription' | 'payment' | 'setup'
  status: 'open' | 'complete' | 'expired'
  payment_status: 'paid' | 'unpaid' | 'no_payment_required'
  created: number
  expires_at: number
  customer: string | null
  customer_email: string | null
  /** Set when the customer completes the checkout. */
  customer_details: {
    email: string | null
    name: null
    phone: null
    address: null
    tax_exempt: 'none'
    tax_ids: []
  } | null
  client_reference_id: string | null
  subscription: string | null
  invoice: string | null
  success_url: string | null
  cancel_url: string | null
  url: string | null
  currency: string | null
  amount_subtotal: number | null
  amount_total: number | null
  metadata: Metadata
  payment_method_collection: 'always' | 'if_required' | null
  ui_mode: 'hosted'
  livemode: false
}

export interface StripePortalSession {
  id: string
  object: 'billing_portal.session'
  created: number
  customer: string
  return_url: string | null
  url: string
  configuration: string
  flow: null
  locale: null
  on_behalf_of: null
  livemode: false
}

export interface StripeSubscriptionItem {
  id: string
  object: 'subscription_item'
  created: number
  price: StripePrice
  quantity: number
  subscription: string
  current_period_start: number
  current_period_end: number
  metadata: Metadata
  discounts: string[]
  tax_rates: []
}

export interface StripeSubscription {
  id: string
  object: 'subscription'
  customer: string
  status: 'incomplete' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused'
  items: StripeList<StripeSubscriptionItem>
  currency: string
  created: number
  start_date: number
  billing_cycle_anchor: number
  cancel_at: number | null
  cancel_at_period_end: boolean
  canceled_at: number | null
  ended_at: number | null
  cancellation_details: { comment: string | null; feedback: string | null; reason: string | null }
  trial_start: number | null
  trial_end: number | null
  schedule: string | null
  latest_invoice: string | null
  metadata: Metadata
  collection_method: 'charge_automatically'
  default_payment_method: string | null
  description: string | null
  discounts: string[]
  pause_collection: null
  test_clock: null
  livemode: false
}

export interface StripeInvoiceLine {
  id: string
  object: 'line_item'
  amount: number
  currency: string
  description: string
  invoice: string
  quantity: number
  period: { start: number; end: number }
  parent: {
    type: 'subscription_item_details'
    invoice_item_details: null
    subscription_item_details: {
      subscription: string
      subscription_item: string
      invoice_item: string | null
      proration: boolean
      proration_details: { credited_items: null }
    }
  }
  pricing: {
    type: 'price_details'
    price_details: { price: string; product: string }
    unit_amount_decimal: string
  }
  subscription: string
  metadata: Metadata
  discountable: boolean
  discounts: string[]
  taxes: []
  livemode: false
}

export interface StripeInvoice {
  id: string
  object: 'invoice'
  customer: string
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible'
  billing_reason: 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual'
  collection_method: 'charge_automatically'
  currency: string
  created: number
  period_start: number
  period_end: number
  subtotal: number
  total: number
  amount_due: number
  amount_paid: number
  amount_remaining: number
  attempted: boolean
  attempt_count: number
  number: string
  lines: StripeList<StripeInvoiceLine>
  parent: {
    type: 'subscription_details'
    quote_details: null
    subscription_details: { subscription: string; metadata: Metadata }
  }
  status_transitions: { finalized_at: number | null; paid_at: number | null; voided_at: null }
  hosted_invoice_url: string
  metadata: Metadata
  livemode: false
}

export interface StripeSchedulePhase {
  start_date: number
  end_date: number
  items: { price: string; quantity: number; metadata: Metadata }[]
  proration_behavior: 'create_prorations' | 'always_invoice' | 'none'
  metadata: Metadata
  trial_end: number | null
  currency: string
}

export interface StripeSubscriptionSchedule {
  id: string
  object: 'subscription_schedule'
  created: number
  customer: string
  subscription: string | null
  status: 'not_started' | 'active' | 'completed' | 'released' | 'canceled'
  end_behavior: 'release' | 'cancel'
  phases: StripeSchedulePhase[]
  current_phase: { start_date: number; end_date: number } | null
  canceled_at: number | null
  completed_at: number | null
  released_at: number | null
  released_subscription: string | null
  metadata: Metadata
  test_clock: null
  livemode: false
}

/** One event as sent to the webhook endpoint. */
export interface StripeEvent {
  id: string
  object: 'event'
  api_version: string
  created: number
  type: string
  livemode: false
  pending_webhooks: number
  request: { id: string | null; idempotency_key: string | null }
  data: { object: unknown; previous_attributes?: Record<string, unknown> }
}
