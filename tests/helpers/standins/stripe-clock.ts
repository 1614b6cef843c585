// The test clock: moving it forward crosses, in time order, every boundary on the way — a schedule
// phase ending (the next phase's prices, or the schedule's end behaviour), a period ending (the
// subscription cancelled if it was to cancel at period end, else renewed with a new period and an
// invoice, paid or, when the test asked for it, failed and the subscription past_due).
import { itemLine, makeInvoice } from './stripe-invoices'
import { moveToPhase, release } from './stripe-schedules'
import { addInterval, type StripeStore, snapshot } from './stripe-store'
import { endSubscription } from './stripe-subscriptions'
import type { StripeSubscription } from './stripe-types'

/** The earliest boundary of a live subscription: its period end or its schedule's phase end. */
function boundaryOf(s: StripeStore, sub: StripeSubscription): number {
  const periodEnd = sub.items.data[0]!.current_period_end
  const schedule = sub.schedule ? s.schedules.get(sub.schedule) : undefined
  const phaseEnd = schedule?.status === 'active' ? (schedule.current_phase?.end_date ?? Infinity) : Infinity
  return Math.min(periodEnd, phaseEnd)
}

/** Ends the current phase of the subscription's schedule if it ends now. */
async function crossPhase(s: StripeStore, sub: StripeSubscription): Promise<void> {
  const schedule = sub.schedule ? s.schedules.get(sub.schedule) : undefined
  if (schedule?.status !== 'active' || !schedule.current_phase) return
  if (schedule.current_phase.end_date > s.clock) return
  const before = snapshot(schedule)
  const next = schedule.phases.find((p) => p.start_date === before.current_phase!.end_date)
  if (next) {
    schedule.current_phase = { start_date: next.start_date, end_date: next.end_date }
    // At a period boundary there is no unused time to prorate; mid-period the phase says how.
    const atPeriodEnd = sub.items.data[0]!.current_period_end <= s.clock
    await moveToPhase(s, sub, next, atPeriodEnd ? 'none' : next.proration_behavior, true)
    await s.emit('subscription_schedule.updated', schedule, { current_phase: before.current_phase })
    return
  }
  if (schedule.end_behavior === 'release') return release(s, schedule)
  Object.assign(schedule, { status: 'completed', completed_at: s.clock, current_phase: null })
  await s.emit('subscription_schedule.completed', schedule)
  await endSubscription(s, sub)
}

/** The end of the period after one that ends at `start`, counted from the billing cycle anchor. */
function nextEnd(anchor: number, start: number, r: Parameters<typeof addInterval>[1]): number {
  let n = 1
  while (addInterval(anchor, r, n) <= start) n += 1
  return addInterval(anchor, r, n)
}

/** Ends or renews the subscription if its period ends now. */
async function crossPeriod(s: StripeStore, sub: StripeSubscription): Promise<void> {
  if (sub.status === 'canceled' || sub.items.data[0]!.current_period_end > s.clock) return
  if (sub.cancel_at_period_end) return endSubscription(s, sub)
  const before = snapshot(sub)
  const book = s.book(sub.id)
  for (const item of sub.items.data) {
    const start = item.current_period_end
    item.current_period_start = start
    item.current_period_end = nextEnd(sub.billing_cycle_anchor, start, item.price.recurring!)
  }
  const lines = sub.items.data.map((i) =>
    itemLine(sub, i, i.price, { start: i.current_period_start, end: i.current_period_end }),
  )
  const fail = book.failNext
  book.failNext = false
  const invoice = makeInvoice(s, sub, 'subscription_cycle', [...book.pending.splice(0), ...lines], fail)
  sub.status = invoice.status === 'paid' ? 'active' : 'past_due'
  const previous: Record<string, unknown> = { items: before.items, latest_invoice: before.latest_invoice }
  if (sub.status !== before.status) previous.status = before.status
  await s.emit('customer.subscription.updated', sub, previous)
  await s.emit(invoice.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed', invoice)
}

/** Moves the clock to `t`, crossing every boundary on the way in time order. */
export async function advanceTo(s: StripeStore, t: number): Promise<void> {
  if (t < s.clock) throw new Error(`the stand-in's clock cannot go back (${t} < ${s.clock})`)
  for (;;) {
    const due = [...s.subscriptions.values()]
      .filter((sub) => sub.status !== 'canceled')
      .map((sub) => ({ sub, at: boundaryOf(s, sub) }))
      .filter((x) => x.at <= t)
      .sort((a, b) => a.at - b.at)[0]
    if (!due) break
    s.clock = Math.max(s.clock, due.at)
    await crossPhase(s, due.sub)
    await crossPeriod(s, due.sub)
  }
  s.clock = t
}

/** Makes the subscription's next renewal fail. */
export function failNextPayment(s: StripeStore, subscriptionId: string): void {
  if (!s.subscriptions.has(subscriptionId)) throw new Error(`no subscription ${subscriptionId}`)
  s.book(subscriptionId).failNext = true
}
