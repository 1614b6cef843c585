/**
 * Plan: the workspace's plan (name, price, term), each cap with its use (admins), the period's
 * estimated cost, the plans on offer side by side (monthly or yearly), and, when billing is on,
 * subscribing, changing plan and the payment provider's portal; the legal documents a paid plan
 * needs accepted. Members see it read-only.
 */
import { useEffect, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { type Billing, getBilling, getBillingStatus, listPlans, type Plan as PlanDef } from '../api/billing'
import { me } from '../api/session'
import { PlanSubscription, termName, usePlanActions } from '../components/plan-billing'
import { CapBars } from '../components/plan-caps'
import { PlanLegal } from '../components/plan-legal'
import { money, PlanOffers, price, type Term, TermSwitch } from '../components/plan-offers'
import { Async, ErrorBox, Note, PageHeader, Time } from '../components/ui'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'
import '../styles/plan.css'

/** What a return from checkout says. */
const RETURNS: Record<string, [string, 'ok' | 'info']> = {
  success: [
    'Thank you: the payment went through. The new plan applies as soon as the payment provider confirms it, usually within seconds.',
    'ok',
  ],
  cancelled: ['Checkout was cancelled: nothing was charged and the plan is unchanged.', 'info'],
}

/** The Plan page. */
export function Plan(_props: { id?: string }) {
  const admin = me.value?.role === 'admin'
  const { query } = useLocation()
  const [round, setRound] = useState(0)
  const plans = useLoad((signal) => listPlans(signal), [])
  const billing = useLoad((signal) => (admin ? getBilling(signal) : Promise.resolve(null)), [admin, round])
  const status = useLoad((signal) => getBillingStatus(signal), [round])
  const [term, setTerm] = useState<Term>('month')
  const st = status.data
  useEffect(() => {
    if (st?.term) setTerm(st.term)
  }, [st?.term])
  const current = billing.data?.plan ?? st?.tier
  const enabled = st?.billing_enabled ?? billing.data?.billing_enabled ?? false
  const planName = (id: string) => plans.data?.find((p) => p.id === id)?.name ?? id
  const actions = usePlanActions({ status: st, current, term, onChanged: () => setRound((r) => r + 1) })
  const back = RETURNS[query.checkout ?? '']
  const changed = actions.changed
  return (
    <>
      <PageHeader
        title="Plan"
        lead="What this workspace may use, how much of it is used, and the plans on offer."
      />
      <div class="stack">
        {back && !changed && <Note kind={back[1]}>{back[0]}</Note>}
        {changed && (
          <Note kind="ok">
            {changed.effective === 'now'
              ? `Now on ${planName(changed.tier)}, billed ${termName(changed.term)}: the change applies now, the difference prorated.`
              : `${planName(changed.tier)}, billed ${termName(changed.term)}, applies at the end of the paid period, on `}
            {changed.effective !== 'now' && <Time iso={changed.effective_at} />}
          </Note>
        )}
        {admin ? (
          <Async load={billing}>
            {(b) =>
              b && <CurrentPlan billing={b} plan={plans.data?.find((p) => p.id === b.plan)} term={st?.term} />
            }
          </Async>
        ) : (
          current && (
            <p>
              This workspace is on the <strong>{planName(current)}</strong> plan. Ask an admin to change it.
            </p>
          )
        )}
        <PlanSubscription status={st} enabled={enabled} admin={admin} planName={planName} />
        <section aria-labelledby="offers-title" class="stack">
          <div class="plan-offers-head">
            <h2 id="offers-title">Plans on offer</h2>
            <TermSwitch term={term} onChange={setTerm} />
          </div>
          <ErrorBox error={actions.error} />
          <Async load={plans}>
            {(list) => (
              <PlanOffers
                plans={list.filter((p) => p.public || p.id === current)}
                current={current}
                term={term}
                action={admin && enabled ? actions.action : undefined}
              />
            )}
          </Async>
        </section>
        <PlanLegal admin={admin} version={round} />
      </div>
      {actions.dialog}
    </>
  )
}

/** The plan in force: its price and term, each cap's use, the period's estimated cost. */
function CurrentPlan({
  billing,
  plan,
  term,
}: {
  billing: Billing
  plan: PlanDef | undefined
  term?: Term | null
}) {
  const cost = billing.estimated_cost
  return (
    <section class="card stack" aria-labelledby="current-title">
      <div class="plan-offers-head">
        <h2 id="current-title" class="card-title">
          {billing.plan_name} plan
        </h2>
        {plan && <span class="plan-price">{price(plan, term ?? 'month')}</span>}
      </div>
      <CapBars billing={billing} />
      <p class="plan-cost">
        Estimated cost of this period ({billing.period.start} to {billing.period.end}):{' '}
        <strong>{money(cost.amount, cost.currency)}</strong>
      </p>
    </section>
  )
}
