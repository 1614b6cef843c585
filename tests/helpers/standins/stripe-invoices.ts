// Invoices of subscriptions: their lines (a period's charge, or a proration credit or charge for the
// unused time of a period) and the invoice that collects them, paid at once or, when the test said
// the next payment fails, left open with one failed attempt.
import { type Form, int, str } from './stripe-form'
import { type StripeStore, stripeId } from './stripe-store'
import type {
  StripeInvoice,
  StripeInvoiceLine,
  StripePrice,
  StripeSubscription,
  StripeSubscriptionItem,
} from './stripe-types'

const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10)

/** A line for a subscription item: a period's charge, or a proration when `proration` is set. */
export function itemLine(
  sub: StripeSubscription,
  item: Pick<StripeSubscriptionItem, 'id' | 'quantity'>,
  price: StripePrice,
  period: { start: number; end: number },
  proration?: { amount: number; description: string },
): StripeInvoiceLine {
  const amount = proration ? proration.amount : price.unit_amount * item.quantity
  return {
    id: stripeId('il'),
    object: 'line_item',
    amount,
    currency: price.currency,
    description: proration?.description ?? `${item.quantity} × ${price.nickname ?? price.product}`,
    invoice: '',
    quantity: item.quantity,
    period,
    parent: {
      type: 'subscription_item_details',
      invoice_item_details: null,
      subscription_item_details: {
        subscription: sub.id,
        subscription_item: item.id,
        invoice_item: proration ? stripeId('ii') : null,
        proration: Boolean(proration),
        proration_details: { credited_items: null },
      },
    },
    pricing: {
      type: 'price_details',
      price_details: { price: price.id, product: price.product },
      unit_amount_decimal: String(price.unit_amount),
    },
    subscription: sub.id,
    metadata: {},
    discountable: !proration,
    discounts: [],
    taxes: [],
    livemode: false,
  }
}

/**
 * The two proration lines of a price change at `at`: a credit for the unused time on the old price
 * and a charge for the remaining time on the new one, each the price times the unused fraction of
 * the period, rounded to the cent as Stripe does.
 */
export function prorationLines(
  sub: StripeSubscription,
  item: StripeSubscriptionItem,
  next: StripePrice,
  quantity: number,
  at: number,
): StripeInvoiceLine[] {
  const { current_period_start: start, current_period_end: end } = item
  const fraction = end > start ? Math.max(0, end - at) / (end - start) : 0
  const period = { start: at, end }
  const oldName = item.price.nickname ?? item.price.product
  const newName = next.nickname ?? next.product
  return [
    itemLine(sub, item, item.price, period, {
      amount: -Math.round(item.price.unit_amount * item.quantity * fraction),
      description: `Unused time on ${item.quantity} × ${oldName} after ${day(at)}`,
    }),
    itemLine(sub, { id: item.id, quantity }, next, period, {
      amount: Math.round(next.unit_amount * quantity * fraction),
      description: `Remaining time on ${quantity} × ${newName} after ${day(at)}`,
    }),
  ]
}

/** Makes and stores a finalized invoice of those lines; paid unless `fail` (then open, attempted). */
export function makeInvoice(
  s: StripeStore,
  sub: StripeSubscription,
  reason: StripeInvoice['billing_reason'],
  lines: StripeInvoiceLine[],
  fail = false,
): StripeInvoice {
  const id = stripeId('in')
  const total = lines.reduce((n, l) => n + l.amount, 0)
  const due = Math.max(0, total)
  const starts = lines.map((l) => l.period.start)
  const ends = lines.map((l) => l.period.end)
  s.invoiceCount += 1
  const invoice: StripeInvoice = {
    id,
    object: 'invoice',
    customer: sub.customer,
    status: fail && due > 0 ? 'open' : 'paid',
    billing_reason: reason,
    collection_method: 'charge_automatically',
    currency: sub.currency,
    created: s.clock,
    period_start: starts.length ? Math.min(...starts) : s.clock,
    period_end: ends.length ? Math.max(...ends) : s.clock,
    subtotal: total,
    total,
    amount_due: due,
    amount_paid: fail ? 0 : due,
    amount_remaining: fail ? due : 0,
    attempted: due > 0,
    attempt_count: due > 0 ? 1 : 0,
    number: `STANDIN-${String(s.invoiceCount).padStart(4, '0')}`,
    lines: {
      object: 'list',
      data: lines.map((l) => ({ ...l, invoice: id })),
      has_more: false,
      url: `/v1/invoices/${id}/lines`,
    },
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { subscription: sub.id, metadata: { ...sub.metadata } },
    },
    status_transitions: { finalized_at: s.clock, paid_at: fail && due > 0 ? null : s.clock, voided_at: null },
    hosted_invoice_url: `${s.base}/invoice/${id}`,
    metadata: {},
    livemode: false,
  }
  s.invoices.set(id, invoice)
  sub.latest_invoice = id
  return invoice
}

/** GET /v1/invoices: filters subscription, customer, status; newest first. */
export function listInvoices(s: StripeStore, f: Form) {
  const limit = int(f.limit, 'limit') ?? 10
  const sub = str(f.subscription)
  const data = [...s.invoices.values()]
    .filter((i) => !sub || i.parent.subscription_details.subscription === sub)
    .filter((i) => f.customer === undefined || i.customer === f.customer)
    .filter((i) => f.status === undefined || i.status === f.status)
    .reverse()
  return {
    object: 'list' as const,
    data: data.slice(0, limit),
    has_more: data.length > limit,
    url: '/v1/invoices',
  }
}
