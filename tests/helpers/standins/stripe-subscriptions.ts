// Subscriptions changed through the API: a new price for an item (with prorations for the unused
// time of the period, invoiced at once or kept for the next invoice), cancellation at period end
// or now, metadata. Every change emits customer.subscription.updated with previous_attributes.
import { bool, type Form, hash, int, list, mergeMetadata, str } from './stripe-form'
import { itemLine, makeInvoice, prorationLines } from './stripe-invoices'
import { addInterval, StripeFail, type StripeStore, snapshot } from './stripe-store'
import type {
  StripeInvoiceLine,
  StripePrice,
  StripeSubscription,
  StripeSubscriptionItem,
} from './stripe-types'

export type Proration = 'create_prorations' | 'always_invoice' | 'none'

/** The proration_behavior parameter, checked. */
export function prorationOf(v: unknown, param = 'proration_behavior'): Proration | null {
  const b = str(v)
  if (b === null) return null
  if (!['create_prorations', 'always_invoice', 'none'].includes(b))
    throw new StripeFail(
      400,
      `Invalid ${param}: must be one of create_prorations, always_invoice, or none`,
      param,
    )
  return b as Proration
}

/**
 * Puts `price` on the item at `at`. Returns the lines the change bills and whether they are billed
 * now: a change of interval restarts the period and bills it at once (with the old price's unused
 * time credited); a change within the period bills prorations now only with always_invoice.
 */
export function changeItemPrice(
  sub: StripeSubscription,
  item: StripeSubscriptionItem,
  price: StripePrice,
  quantity: number,
  behavior: Proration,
  at: number,
): { lines: StripeInvoiceLine[]; invoiceNow: boolean } {
  const old = item.price.recurring!
  const next = price.recurring!
  const intervalChanged = old.interval !== next.interval || old.interval_count !== next.interval_count
  if (sub.status === 'trialing' || sub.status === 'canceled') {
    Object.assign(item, { price, quantity })
    return { lines: [], invoiceNow: false }
  }
  const prorations = behavior === 'none' ? [] : prorationLines(sub, item, price, quantity, at)
  if (!intervalChanged) {
    Object.assign(item, { price, quantity })
    return { lines: prorations, invoiceNow: behavior === 'always_invoice' }
  }
  const end = addInterval(at, next)
  Object.assign(item, { price, quantity, current_period_start: at, current_period_end: end })
  sub.billing_cycle_anchor = at
  return {
    lines: [...prorations.slice(0, 1), itemLine(sub, item, price, { start: at, end })],
    invoiceNow: true,
  }
}

/** The item changes of an update, checked against the subscription before anything is written. */
function itemChanges(s: StripeStore, sub: StripeSubscription, f: Form) {
  return list(f.items, 'items').map((raw, i) => {
    const p = `items[${i}]`
    const change = hash(raw, p)
    const id = str(change.id)
    const item = sub.items.data.find((x) => x.id === id)
    if (!id)
      throw new StripeFail(400, 'The stand-in only changes existing items: pass items[][id].', `${p}[id]`)
    if (!item) throw new StripeFail(400, `Invalid subscription_item: '${id}'`, `${p}[id]`, 'resource_missing')
    const priceId = str(change.price)
    const price = priceId ? s.price(priceId, `${p}[price]`) : item.price
    if (!price.recurring) throw new StripeFail(400, 'The price specified is not recurring.', `${p}[price]`)
    if (price.currency !== sub.currency)
      throw new StripeFail(400, 'The price currency does not match the subscription currency.', `${p}[price]`)
    return { item, price, quantity: int(change.quantity, `${p}[quantity]`) ?? item.quantity }
  })
}

/** POST /v1/subscriptions/:id */
export async function updateSubscription(s: StripeStore, f: Form, [id]: string[]) {
  const sub = s.find(s.subscriptions, id!, 'subscription')
  const behavior = prorationOf(f.proration_behavior) ?? 'create_prorations'
  const cancelAtEnd = bool(f.cancel_at_period_end, 'cancel_at_period_end')
  const changes = itemChanges(s, sub, f)
  if (sub.status === 'canceled' && (changes.length > 0 || cancelAtEnd !== null))
    throw new StripeFail(
      400,
      'A canceled subscription can only update its cancellation_details and metadata.',
    )
  const before = snapshot(sub)
  const previous: Record<string, unknown> = {}
  const lines: StripeInvoiceLine[] = []
  let invoiceNow = false
  for (const c of changes) {
    if (c.item.price.id === c.price.id && c.item.quantity === c.quantity) continue
    const r = changeItemPrice(sub, c.item, c.price, c.quantity, behavior, s.clock)
    lines.push(...r.lines)
    invoiceNow ||= r.invoiceNow
    previous.items = before.items
  }
  if (cancelAtEnd !== null && cancelAtEnd !== sub.cancel_at_period_end) {
    Object.assign(previous, {
      cancel_at_period_end: before.cancel_at_period_end,
      cancel_at: before.cancel_at,
    })
    sub.cancel_at_period_end = cancelAtEnd
    sub.cancel_at = cancelAtEnd ? sub.items.data[0]!.current_period_end : null
    sub.canceled_at = cancelAtEnd ? s.clock : null
    sub.cancellation_details.reason = cancelAtEnd ? 'cancellation_requested' : null
  }
  if (f.metadata !== undefined) {
    const metadata = mergeMetadata(sub.metadata, f.metadata)
    if (JSON.stringify(metadata) !== JSON.stringify(sub.metadata)) previous.metadata = before.metadata
    sub.metadata = metadata
  }
  const book = s.book(sub.id)
  const invoice = invoiceNow
    ? makeInvoice(s, sub, 'subscription_update', [...book.pending.splice(0), ...lines])
    : null
  if (!invoiceNow) book.pending.push(...lines)
  if (invoice) previous.latest_invoice = before.latest_invoice
  if (Object.keys(previous).length > 0) await s.emit('customer.subscription.updated', sub, previous)
  if (invoice) await s.emit('invoice.paid', invoice)
  return sub
}

/** Ends the subscription now (its schedule, if any, is canceled with it) and emits the deletion. */
export async function endSubscription(s: StripeStore, sub: StripeSubscription): Promise<void> {
  sub.status = 'canceled'
  sub.canceled_at ??= s.clock
  sub.ended_at = s.clock
  sub.cancellation_details.reason ??= 'cancellation_requested'
  const schedule = sub.schedule ? s.schedules.get(sub.schedule) : undefined
  if (schedule && schedule.status === 'active') {
    schedule.status = 'canceled'
    schedule.canceled_at = s.clock
  }
  await s.emit('customer.subscription.deleted', sub)
}

/** DELETE /v1/subscriptions/:id: cancels at once. */
export async function cancelSubscription(s: StripeStore, _f: Form, [id]: string[]) {
  const sub = s.find(s.subscriptions, id!, 'subscription')
  if (sub.status === 'canceled')
    throw new StripeFail(400, `This subscription has already been canceled: '${sub.id}'`)
  await endSubscription(s, sub)
  return sub
}

/** GET /v1/subscriptions: filters customer, price, status (default: all but canceled); newest first. */
export function listSubscriptions(s: StripeStore, f: Form) {
  const limit = int(f.limit, 'limit') ?? 10
  const status = str(f.status)
  const data = [...s.subscriptions.values()]
    .filter((x) => (status === 'all' ? true : status ? x.status === status : x.status !== 'canceled'))
    .filter((x) => f.customer === undefined || x.customer === f.customer)
    .filter((x) => f.price === undefined || x.items.data.some((i) => i.price.id === f.price))
    .reverse()
  return {
    object: 'list' as const,
    data: data.slice(0, limit),
    has_more: data.length > limit,
    url: '/v1/subscriptions',
  }
}
