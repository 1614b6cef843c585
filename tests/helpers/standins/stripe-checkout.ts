// Checkout sessions in subscription mode, their completion (which the test drives in place of a
// customer paying on Stripe's page) and billing portal sessions.
import { createCustomer, priceFrom } from './stripe-catalog'
import { type Form, hash, int, list, mergeMetadata, str } from './stripe-form'
import { itemLine, makeInvoice } from './stripe-invoices'
import { addInterval, type SessionPlan, StripeFail, type StripeStore, stripeId } from './stripe-store'
import type {
  StripeCheckoutSession,
  StripePortalSession,
  StripePrice,
  StripeSubscription,
  StripeSubscriptionItem,
} from './stripe-types'

/** The line items of a session, resolved to stored prices (price_data makes an inactive price). */
function lineItems(s: StripeStore, f: Form): { price: StripePrice; quantity: number }[] {
  const items = list(f.line_items, 'line_items')
  if (items.length === 0)
    throw new StripeFail(400, 'Missing required param: line_items.', 'line_items', 'parameter_missing')
  const made = items.map((raw, i) => {
    const item = hash(raw, `line_items[${i}]`)
    const quantity = int(item.quantity, `line_items[${i}][quantity]`) ?? 1
    const id = str(item.price)
    if (id) return { price: s.price(id, `line_items[${i}][price]`), quantity }
    if (item.price_data === undefined)
      throw new StripeFail(400, `You must specify either \`price\` or \`price_data\` in line_items[${i}].`)
    const { price, product } = priceFrom(
      s,
      hash(item.price_data, 'price_data'),
      `line_items[${i}][price_data]`,
    )
    return { price: { ...price, active: false }, product, quantity }
  })
  for (const [i, m] of made.entries())
    if (!m.price.recurring)
      throw new StripeFail(
        400,
        'You must provide at least one recurring price in `subscription` mode when using prices.',
        `line_items[${i}]`,
      )
  for (const m of made) {
    if ('product' in m && m.product) s.products.set(m.product.id, m.product)
    s.prices.set(m.price.id, m.price)
  }
  return made
}

/** POST /v1/checkout/sessions (mode=subscription). */
export function createSession(s: StripeStore, f: Form): StripeCheckoutSession {
  const mode = str(f.mode)
  if (mode !== 'subscription')
    throw new StripeFail(400, 'The stand-in only supports `mode=subscription`.', 'mode')
  const customer = str(f.customer)
  if (customer && !s.customers.has(customer))
    throw new StripeFail(400, `No such customer: '${customer}'`, 'customer', 'resource_missing')
  if (!str(f.success_url))
    throw new StripeFail(400, 'Missing required param: success_url.', 'success_url', 'parameter_missing')
  const subData = hash(f.subscription_data, 'subscription_data')
  const trialDays = int(subData.trial_period_days, 'subscription_data[trial_period_days]')
  const pmc = str(f.payment_method_collection)
  if (pmc && pmc !== 'always' && pmc !== 'if_required')
    throw new StripeFail(400, 'Invalid payment_method_collection', 'payment_method_collection')
  const subscriptionMetadata = mergeMetadata({}, subData.metadata)
  const metadata = mergeMetadata({}, f.metadata)
  const items = lineItems(s, f)
  const id = stripeId('cs_test')
  const total = items.reduce((n, i) => n + i.price.unit_amount * i.quantity, 0)
  const session: StripeCheckoutSession = {
    id,
    object: 'checkout.session',
    mode: 'subscription',
    status: 'open',
    payment_status: 'unpaid',
    created: s.clock,
    expires_at: s.clock + 86400,
    customer,
    customer_email: str(f.customer_email),
    customer_details: null,
    client_reference_id: str(f.client_reference_id),
    subscription: null,
    invoice: null,
    success_url: str(f.success_url),
    cancel_url: str(f.cancel_url),
    url: `${s.base}/checkout/${id}`,
    currency: items[0]!.price.currency,
    amount_subtotal: total,
    amount_total: total,
    metadata,
    payment_method_collection: (pmc as 'always' | 'if_required' | null) ?? 'always',
    ui_mode: 'hosted',
    livemode: false,
  }
  s.sessions.set(id, session)
  const plan: SessionPlan = {
    items: items.map((i) => ({ price: i.price.id, quantity: i.quantity })),
    subscriptionMetadata,
    trialDays,
  }
  s.plans.set(id, plan)
  return session
}

/** Makes a subscription of those items for the customer, starting now (trialing when trialDays > 0). */
export function newSubscription(s: StripeStore, customer: string, plan: SessionPlan): StripeSubscription {
  const id = stripeId('sub')
  const now = s.clock
  const trialEnd = plan.trialDays ? now + plan.trialDays * 86400 : null
  const items: StripeSubscriptionItem[] = plan.items.map((i) => {
    const price = s.price(i.price, 'items')
    return {
      id: stripeId('si'),
      object: 'subscription_item',
      created: now,
      price,
      quantity: i.quantity,
      subscription: id,
      current_period_start: now,
      current_period_end: trialEnd ?? addInterval(now, price.recurring!),
      metadata: {},
      discounts: [],
      tax_rates: [],
    }
  })
  const sub: StripeSubscription = {
    id,
    object: 'subscription',
    customer,
    status: trialEnd ? 'trialing' : 'active',
    items: { object: 'list', data: items, has_more: false, url: `/v1/subscription_items?subscription=${id}` },
    currency: items[0]!.price.currency,
    created: now,
    start_date: now,
    billing_cycle_anchor: trialEnd ?? now,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    ended_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    trial_start: trialEnd ? now : null,
    trial_end: trialEnd,
    schedule: null,
    latest_invoice: null,
    metadata: plan.subscriptionMetadata,
    collection_method: 'charge_automatically',
    default_payment_method: stripeId('pm'),
    description: null,
    discounts: [],
    pause_collection: null,
    test_clock: null,
    livemode: false,
  }
  s.subscriptions.set(id, sub)
  s.book(id)
  return sub
}

/**
 * What a customer paying on the checkout page does: the customer (made when the session had none),
 * the subscription, its first invoice (0 during a trial), the session complete; then the events.
 */
export async function completeCheckout(
  s: StripeStore,
  sessionId: string,
  opts: { trialDays?: number } = {},
): Promise<StripeSubscription> {
  const session = s.find(s.sessions, sessionId, 'checkout.session')
  if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${session.status}`)
  const plan = s.plans.get(sessionId)!
  const customer =
    session.customer ?? createCustomer(s, session.customer_email ? { email: session.customer_email } : {}).id
  const sub = newSubscription(s, customer, { ...plan, trialDays: opts.trialDays ?? plan.trialDays })
  const lines = sub.items.data.map((item) => {
    const period = { start: item.current_period_start, end: item.current_period_end }
    const line = itemLine(sub, item, item.price, period)
    return sub.status === 'trialing'
      ? { ...line, amount: 0, description: `Trial period for ${line.description}` }
      : line
  })
  const invoice = makeInvoice(s, sub, 'subscription_create', lines)
  const email = s.customers.get(customer)?.email ?? session.customer_email
  Object.assign(session, {
    status: 'complete',
    url: null,
    customer_details: { email, name: null, phone: null, address: null, tax_exempt: 'none', tax_ids: [] },
    payment_status: invoice.amount_due > 0 ? 'paid' : 'no_payment_required',
    customer,
    subscription: sub.id,
    invoice: invoice.id,
  })
  await s.emit('checkout.session.completed', session)
  await s.emit('customer.subscription.created', sub)
  await s.emit('invoice.paid', invoice)
  return sub
}

/** POST /v1/checkout/sessions/:id/expire: an open session can no longer be paid. */
export async function expireSession(s: StripeStore, _f: Form, [id]: string[]) {
  const session = s.find(s.sessions, id!, 'checkout.session')
  if (session.status !== 'open')
    throw new StripeFail(400, `Only Checkout Sessions with a status in ["open"] can be expired.`)
  session.status = 'expired'
  session.url = null
  await s.emit('checkout.session.expired', session)
  return session
}

/** POST /v1/billing_portal/sessions */
export function createPortalSession(s: StripeStore, f: Form): StripePortalSession {
  const customer = str(f.customer)
  if (!customer)
    throw new StripeFail(400, 'Missing required param: customer.', 'customer', 'parameter_missing')
  if (!s.customers.has(customer))
    throw new StripeFail(400, `No such customer: '${customer}'`, 'customer', 'resource_missing')
  const id = stripeId('bps')
  const portal: StripePortalSession = {
    id,
    object: 'billing_portal.session',
    created: s.clock,
    customer,
    return_url: str(f.return_url),
    url: `${s.base}/portal/${id}`,
    configuration: 'bpc_standin',
    flow: null,
    locale: null,
    on_behalf_of: null,
    livemode: false,
  }
  s.portals.set(id, portal)
  return portal
}
