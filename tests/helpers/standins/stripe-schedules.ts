// Subscription schedules made from a subscription: one phase for the current period, then the
// phases a request sets (a change of price at a date, typically a downgrade at the period end).
// Past phases stay on the schedule; an update replaces the current phase and those after it.
import { type Form, hash, int, list, mergeMetadata, str } from './stripe-form'
import { makeInvoice } from './stripe-invoices'
import { addInterval, StripeFail, type StripeStore, snapshot, stripeId } from './stripe-store'
import { changeItemPrice, type Proration, prorationOf } from './stripe-subscriptions'
import type { StripeSchedulePhase, StripeSubscription, StripeSubscriptionSchedule } from './stripe-types'

/** The phase of the schedule in force at `at`. */
export function phaseAt(schedule: StripeSubscriptionSchedule, at: number): StripeSchedulePhase | undefined {
  return schedule.phases.find((p) => p.start_date <= at && at < p.end_date)
}

/** POST /v1/subscription_schedules (from_subscription only). */
export async function createSchedule(s: StripeStore, f: Form) {
  const subId = str(f.from_subscription)
  if (!subId)
    throw new StripeFail(400, 'The stand-in only makes schedules from_subscription.', 'from_subscription')
  const sub = s.subscriptions.get(subId)
  if (!sub)
    throw new StripeFail(400, `No such subscription: '${subId}'`, 'from_subscription', 'resource_missing')
  if (sub.status === 'canceled')
    throw new StripeFail(
      400,
      'You cannot migrate a canceled subscription to a schedule.',
      'from_subscription',
    )
  if (sub.schedule)
    throw new StripeFail(
      400,
      `You cannot migrate a subscription that is already attached to a schedule: \`${sub.schedule}\`.`,
      'from_subscription',
    )
  const first = sub.items.data[0]!
  const phase: StripeSchedulePhase = {
    start_date: first.current_period_start,
    end_date: first.current_period_end,
    items: sub.items.data.map((i) => ({ price: i.price.id, quantity: i.quantity, metadata: {} })),
    proration_behavior: 'create_prorations',
    metadata: {},
    trial_end: sub.status === 'trialing' ? sub.trial_end : null,
    currency: sub.currency,
  }
  const schedule: StripeSubscriptionSchedule = {
    id: stripeId('sub_sched'),
    object: 'subscription_schedule',
    created: s.clock,
    customer: sub.customer,
    subscription: sub.id,
    status: 'active',
    end_behavior: 'release',
    phases: [phase],
    current_phase: { start_date: phase.start_date, end_date: phase.end_date },
    canceled_at: null,
    completed_at: null,
    released_at: null,
    released_subscription: null,
    metadata: mergeMetadata({}, f.metadata),
    test_clock: null,
    livemode: false,
  }
  s.schedules.set(schedule.id, schedule)
  sub.schedule = schedule.id
  await s.emit('subscription_schedule.created', schedule)
  await s.emit('customer.subscription.updated', sub, { schedule: null })
  return schedule
}

/** The phases of an update, checked: contiguous, starting with the current phase, prices known. */
function phasesOf(s: StripeStore, schedule: StripeSubscriptionSchedule, raw: unknown): StripeSchedulePhase[] {
  const input = list(raw, 'phases')
  if (input.length === 0) throw new StripeFail(400, 'Missing required param: phases.', 'phases')
  const current = schedule.current_phase?.start_date ?? s.clock
  const out: StripeSchedulePhase[] = []
  input.forEach((rawPhase, i) => {
    const p = `phases[${i}]`
    const phase = hash(rawPhase, p)
    const items = list(phase.items, `${p}[items]`).map((rawItem, j) => {
      const item = hash(rawItem, `${p}[items][${j}]`)
      const priceId = str(item.price)
      if (!priceId)
        throw new StripeFail(
          400,
          `Missing required param: ${p}[items][${j}][price].`,
          `${p}[items][${j}][price]`,
        )
      const price = s.price(priceId, `${p}[items][${j}][price]`)
      if (!price.recurring)
        throw new StripeFail(400, 'The price specified is not recurring.', `${p}[items][${j}][price]`)
      return { price, quantity: int(item.quantity, `${p}[items][${j}][quantity]`) ?? 1 }
    })
    if (items.length === 0) throw new StripeFail(400, `Missing required param: ${p}[items].`, `${p}[items]`)
    const expected = i === 0 ? current : out[i - 1]!.end_date
    const start =
      phase.start_date === 'now' ? s.clock : (int(phase.start_date, `${p}[start_date]`) ?? expected)
    if (start !== expected)
      throw new StripeFail(
        400,
        i === 0
          ? 'You can not modify the start date of the current phase.'
          : `The start_date of ${p} must be the end_date of the phase before it.`,
        `${p}[start_date]`,
      )
    const iterations = int(phase.iterations, `${p}[iterations]`)
    const end =
      int(phase.end_date, `${p}[end_date]`) ?? addInterval(start, items[0]!.price.recurring!, iterations ?? 1)
    if (end <= start)
      throw new StripeFail(400, `The end_date of ${p} must be after its start_date.`, `${p}[end_date]`)
    out.push({
      start_date: start,
      end_date: end,
      items: items.map((x) => ({ price: x.price.id, quantity: x.quantity, metadata: {} })),
      proration_behavior:
        prorationOf(phase.proration_behavior, `${p}[proration_behavior]`) ?? 'create_prorations',
      metadata: mergeMetadata({}, phase.metadata),
      trial_end: null,
      currency: items[0]!.price.currency,
    })
  })
  return out
}

/** Puts the subscription on the items of a phase (prorated as `behavior` says); true when it changed. */
export function applyPhase(
  s: StripeStore,
  sub: StripeSubscription,
  phase: StripeSchedulePhase,
  behavior: Proration,
): { changed: boolean; lines: ReturnType<typeof changeItemPrice>['lines']; invoiceNow: boolean } {
  const out = { changed: false, lines: [] as ReturnType<typeof changeItemPrice>['lines'], invoiceNow: false }
  phase.items.forEach((want, i) => {
    const item = sub.items.data[i]
    if (!item || (item.price.id === want.price && item.quantity === want.quantity)) return
    const r = changeItemPrice(sub, item, s.prices.get(want.price)!, want.quantity, behavior, s.clock)
    out.changed = true
    out.lines.push(...r.lines)
    out.invoiceNow ||= r.invoiceNow
  })
  return out
}

function live(schedule: StripeSubscriptionSchedule) {
  if (schedule.status !== 'active' && schedule.status !== 'not_started')
    throw new StripeFail(
      400,
      `You cannot update a subscription schedule that is currently in the \`${schedule.status}\` status.`,
    )
}

/** POST /v1/subscription_schedules/:id */
export async function updateSchedule(s: StripeStore, f: Form, [id]: string[]) {
  const schedule = s.find(s.schedules, id!, 'subscription_schedule')
  live(schedule)
  const endBehavior = str(f.end_behavior)
  if (endBehavior && endBehavior !== 'release' && endBehavior !== 'cancel')
    throw new StripeFail(400, 'Invalid end_behavior: must be one of release or cancel', 'end_behavior')
  const behavior = prorationOf(f.proration_behavior)
  const phases = f.phases === undefined ? null : phasesOf(s, schedule, f.phases)
  const before = snapshot(schedule)
  const previous: Record<string, unknown> = {}
  if (endBehavior && endBehavior !== schedule.end_behavior) {
    previous.end_behavior = before.end_behavior
    schedule.end_behavior = endBehavior as StripeSubscriptionSchedule['end_behavior']
  }
  if (f.metadata !== undefined) {
    previous.metadata = before.metadata
    schedule.metadata = mergeMetadata(schedule.metadata, f.metadata)
  }
  const sub = schedule.subscription ? s.subscriptions.get(schedule.subscription) : undefined
  if (phases) {
    previous.phases = before.phases
    const start = phases[0]!.start_date
    schedule.phases = [...schedule.phases.filter((p) => p.end_date <= start), ...phases]
    const now = phaseAt(schedule, s.clock) ?? phases[0]!
    schedule.current_phase = { start_date: now.start_date, end_date: now.end_date }
    if (sub) await moveToPhase(s, sub, now, behavior ?? now.proration_behavior)
  }
  await s.emit('subscription_schedule.updated', schedule, previous)
  return schedule
}

/**
 * Applies a phase to the subscription and emits what that changed (its update, an invoice). On
 * entering a phase its metadata is also set on the subscription, as Stripe does.
 */
export async function moveToPhase(
  s: StripeStore,
  sub: StripeSubscription,
  phase: StripeSchedulePhase,
  b: Proration,
  entering = false,
) {
  const before = snapshot(sub)
  const r = applyPhase(s, sub, phase, b)
  const previous: Record<string, unknown> = r.changed ? { items: before.items } : {}
  if (entering && Object.keys(phase.metadata).length > 0) {
    sub.metadata = { ...sub.metadata, ...phase.metadata }
    if (JSON.stringify(sub.metadata) !== JSON.stringify(before.metadata)) previous.metadata = before.metadata
  }
  if (Object.keys(previous).length === 0) return
  const book = s.book(sub.id)
  const invoice = r.invoiceNow
    ? makeInvoice(s, sub, 'subscription_update', [...book.pending.splice(0), ...r.lines])
    : null
  if (!invoice) book.pending.push(...r.lines)
  if (invoice) previous.latest_invoice = before.latest_invoice
  await s.emit('customer.subscription.updated', sub, previous)
  if (invoice) await s.emit('invoice.paid', invoice)
}

/** POST /v1/subscription_schedules/:id/release: the subscription goes on without the schedule. */
export async function releaseSchedule(s: StripeStore, _f: Form, [id]: string[]) {
  const schedule = s.find(s.schedules, id!, 'subscription_schedule')
  live(schedule)
  await release(s, schedule)
  return schedule
}

/** Detaches the schedule from its subscription and emits the release. */
export async function release(s: StripeStore, schedule: StripeSubscriptionSchedule): Promise<void> {
  const subId = schedule.subscription
  Object.assign(schedule, {
    status: 'released',
    released_at: s.clock,
    released_subscription: subId,
    subscription: null,
  })
  schedule.current_phase = null
  await s.emit('subscription_schedule.released', schedule)
  const sub = subId ? s.subscriptions.get(subId) : undefined
  if (sub) {
    sub.schedule = null
    await s.emit('customer.subscription.updated', sub, { schedule: schedule.id })
  }
}
