/**
 * The Plan page's billing part: the subscription as billing mirrors it (status, trial end,
 * renewal, cancellation at the period's end, a pending change), "Manage billing" (the payment
 * provider's portal), or, with billing off, that the operator sets plans; and the actions on a
 * plan on offer (checkout, change of plan), each run past the legal gate.
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import {
  type BillingStatus,
  changePlan,
  openPortal,
  type Plan,
  type PlanChange,
  startCheckout,
} from '../api/billing'
import { useAction } from '../lib/action'
import { useLegalGate } from './legal-dialog'
import type { Term } from './plan-offers'
import { Button, ErrorBox, Note, Time } from './ui'

const STATUS: Record<string, [string, 'ok' | 'warn' | 'error']> = {
  active: ['Active', 'ok'],
  trialing: ['Trial', 'ok'],
  past_due: ['Payment overdue', 'warn'],
  unpaid: ['Unpaid', 'error'],
  incomplete: ['Payment incomplete', 'warn'],
  incomplete_expired: ['Payment expired', 'error'],
  canceled: ['Cancelled', 'error'],
  paused: ['Paused', 'warn'],
}

/** A term in words. */
export const termName = (t: Term | null | undefined) => (t === 'year' ? 'yearly' : 'monthly')

/** The subscription, or the operator's sentence when billing is off. */
export function PlanSubscription(props: {
  status: BillingStatus | undefined
  enabled: boolean
  admin: boolean
  planName: (id: string) => string
}) {
  const { status, enabled, admin, planName } = props
  const portal = useAction(async () => {
    const { url } = await openPortal()
    location.assign(url)
  })
  if (!enabled) {
    return (
      <Note>
        Billing is managed by the operator of this server: nothing is bought here. Plans are set by your
        operator with <code>engram plan set</code>.
      </Note>
    )
  }
  if (!status) return null
  const [label, tone] = STATUS[status.subscription_status ?? ''] ?? ['No subscription', 'warn']
  const pending = status.pending_change
  return (
    <div class="card stack plan-subscription">
      <h2 class="card-title">Subscription</h2>
      <dl class="plan-facts">
        <dt>Status</dt>
        <dd>
          <span class={`badge badge-${tone}`}>{label}</span>
        </dd>
        {status.term && (
          <>
            <dt>Billed</dt>
            <dd>{termName(status.term)}</dd>
          </>
        )}
        {status.trial_ends_at && (
          <>
            <dt>Trial ends</dt>
            <dd>
              <Time iso={status.trial_ends_at} />
            </dd>
          </>
        )}
        {status.renews_at && (
          <>
            <dt>{status.cancel_at_period_end ? 'Ends' : 'Renews'}</dt>
            <dd>
              <Time iso={status.renews_at} />
              {status.cancel_at_period_end && ' (cancelled at the end of the paid period)'}
            </dd>
          </>
        )}
        {pending && (
          <>
            <dt>Pending change</dt>
            <dd>
              To {planName(pending.tier)}, {termName(pending.term)}, on <Time iso={pending.effective_at} />
            </dd>
          </>
        )}
      </dl>
      {status.checkout_required && (
        <p class="hint">Choose a paid plan below to subscribe; a card is always asked for.</p>
      )}
      <ErrorBox error={portal.error} />
      {admin && status.portal_available && (
        <div>
          <Button onClick={() => portal.run()} busy={portal.busy}>
            Manage billing
          </Button>
          <p class="hint">Payment method, invoices and cancellation, at the payment provider.</p>
        </div>
      )}
    </div>
  )
}

/** The buttons of the plans on offer, and what a change answered. */
export function usePlanActions(opts: {
  status: BillingStatus | undefined
  current: string | undefined
  term: Term
  onChanged: () => void
}): {
  action: (plan: Plan) => JSX.Element | null
  changed: PlanChange | null
  error: Error | null
  dialog: JSX.Element
} {
  const { status, current, term } = opts
  // An acceptance made on the way shows in the Legal section at once.
  const gate = useLegalGate(opts.onChanged)
  const [changed, setChanged] = useState<PlanChange | null>(null)
  const buy = useAction(async (plan: Plan) => {
    setChanged(null)
    const hasSubscription = status ? !status.checkout_required : false
    if (!hasSubscription) {
      const session = await gate.gated(() => startCheckout(plan.id, term))
      if (session) location.assign(session.url)
      return
    }
    const change = await gate.gated(() => changePlan(plan.id, term))
    if (change) {
      setChanged(change)
      opts.onChanged()
    }
  })
  const action = (plan: Plan) => {
    if (!status?.billing_enabled) return null
    const hasSubscription = !status.checkout_required
    if (plan.prices[term] === 0) {
      // A free plan is no subscription: leaving the paid one is a cancellation (docs/billing.md).
      return hasSubscription && status.portal_available ? (
        <span class="hint">Cancel through Manage billing</span>
      ) : null
    }
    const pending = status.pending_change
    if (pending && pending.tier === plan.id && pending.term === term) {
      return (
        <span class="hint">
          From <Time iso={pending.effective_at} />
        </span>
      )
    }
    const same = plan.id === current && (!hasSubscription || status.term === term)
    // Asking for the plan it is on drops a downgrade waiting for the period end (docs/billing.md).
    if (same && !(hasSubscription && status.pending_change)) return null
    const verb = same ? 'Keep' : hasSubscription ? 'Change to' : 'Upgrade to'
    return (
      <Button
        variant={hasSubscription ? 'plain' : 'primary'}
        busy={buy.busy && buy.args?.[0].id === plan.id}
        disabled={buy.busy}
        onClick={() => buy.run(plan)}
      >
        {verb} {plan.name}
      </Button>
    )
  }
  return { action, changed, error: buy.error, dialog: gate.dialog }
}
