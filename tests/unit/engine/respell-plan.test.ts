import { describe, expect, test } from 'bun:test'
import { planQuery, respellPlan } from '../../../src/features/engine/rank/index'

// respellPlan keeps a question's plan as it is when every term is known (most questions): the same
// object, so the search reads one shape of plan; only a respelled question gets a copy.
describe('respellPlan', () => {
  const known = [
    { term: 'genghi', doc: 3 },
    { term: 'khan', doc: 5 },
  ]
  test('a plan whose terms are all known comes back as it is, with its counts', () => {
    const plan = planQuery('Who was Genghis Khan?')
    const df = plan.terms.map(() => 2)
    const out = respellPlan(plan, df, () => known)
    expect(out.plan).toBe(plan)
    expect(out.df).toEqual(df)
  })

  test('a misspelled term is respelled in a copy, the plan asked for left as it was', () => {
    const plan = planQuery('Who was Gengis Khan?')
    const before = [...plan.terms]
    const df = plan.terms.map((t) => (t === 'khan' ? 5 : 0))
    const out = respellPlan(plan, df, (prefix) => known.filter((k) => k.term.startsWith(prefix)))
    expect(out.plan).not.toBe(plan)
    expect(plan.terms).toEqual(before)
    expect(out.plan.terms).toContain('genghi')
    expect(out.df[out.plan.terms.indexOf('genghi')]).toBe(3)
    expect({ ...out.plan, terms: before }).toEqual(plan)
  })
})
