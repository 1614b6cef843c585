/**
 * The plans on offer side by side: each one's price for the chosen term (a month/year switch) and
 * its caps, the workspace's own plan marked; `action` adds a plan's button (upgrade, change).
 */
import type { ComponentChildren } from 'preact'
import type { Plan } from '../api/billing'
import { CAPS, capAmount } from './plan-caps'
import { TableScroll } from './table-scroll'

/** A billing term as the API names it. */
export type Term = 'month' | 'year'

/** An amount in a plan's currency: "$49", "€490". */
export function money(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
    maximumFractionDigits: Number.isInteger(amount) ? 0 : 2,
  }).format(amount)
}

/** A plan's price for a term: "$49 / month", "Free". */
export function price(plan: Plan, term: Term): string {
  const amount = plan.prices[term]
  return amount === 0 ? 'Free' : `${money(amount, plan.prices.currency)} / ${term}`
}

/** The month/year switch. */
export function TermSwitch({ term, onChange }: { term: Term; onChange: (t: Term) => void }) {
  return (
    <fieldset class="term-switch">
      <legend class="visually-hidden">Prices per</legend>
      {(['month', 'year'] as const).map((t) => (
        <label key={t} class={term === t ? 'term-on' : undefined}>
          <input type="radio" name="term" value={t} checked={term === t} onChange={() => onChange(t)} />
          {t === 'month' ? 'Monthly' : 'Yearly'}
        </label>
      ))}
    </fieldset>
  )
}

/** The table of plans; `current` is the workspace's plan id. */
export function PlanOffers(props: {
  plans: Plan[]
  current: string | undefined
  term: Term
  action?: (plan: Plan) => ComponentChildren
}) {
  const { plans, current, term, action } = props
  return (
    <TableScroll label="Plans on offer">
      <table class="plan-offers">
        <thead>
          <tr>
            <th scope="col">Plan</th>
            {plans.map((p) => (
              <th scope="col" key={p.id} class={p.id === current ? 'plan-current' : undefined}>
                {p.name}
                {p.id === current && (
                  <>
                    {' '}
                    <span class="badge badge-ok">Current plan</span>
                  </>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Price</th>
            {plans.map((p) => (
              <td key={p.id} class={p.id === current ? 'plan-current' : undefined}>
                <strong>{price(p, term)}</strong>
              </td>
            ))}
          </tr>
          {CAPS.map(({ cap, label }) => (
            <tr key={cap}>
              <th scope="row">{label}</th>
              {plans.map((p) => (
                <td key={p.id} class={`num ${p.id === current ? 'plan-current' : ''}`}>
                  {capAmount(cap, p.caps[cap])}
                </td>
              ))}
            </tr>
          ))}
          {action && (
            <tr>
              <th scope="row">
                <span class="visually-hidden">Actions</span>
              </th>
              {plans.map((p) => (
                <td key={p.id}>{action(p)}</td>
              ))}
            </tr>
          )}
        </tbody>
      </table>
    </TableScroll>
  )
}
