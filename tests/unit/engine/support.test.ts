import { describe, expect, test } from 'bun:test'
import { planQuery } from '../../../src/features/engine/lib/query'
import { prepareStaticVectors } from '../../../src/features/engine/lib/static-vectors'
import {
  SUPPORT_THRESHOLD,
  supportScore,
  supportSignals,
  type TermEvidence,
} from '../../../src/features/engine/lib/support'

prepareStaticVectors()

// A question about when a school was founded, with its terms as a base of 1,000 passages knows them.
const QUESTION = 'In what year was the Harwell school founded?'
const PLAN = planQuery(QUESTION)
const EVIDENCE: TermEvidence = { terms: PLAN.terms, df: [80, 3, 40, 60], passages: 1000, soft: PLAN.soft }

describe('support signals', () => {
  test("the best sentence's coverage tells words together from words scattered over a passage", () => {
    const together = 'Harwell school was founded in the year 1871. It has grown since then.'
    const scattered =
      'Harwell is a village. Its football club was founded late. A school bus stops there every year.'
    const a = supportSignals(QUESTION, EVIDENCE, together, 'Education')
    const b = supportSignals(QUESTION, EVIDENCE, scattered, 'Education')
    // The whole passage holds every term in both...
    expect(b.coverage).toBeCloseTo(a.coverage, 6)
    expect(a.coverage).toBeGreaterThan(0.99)
    // ...one sentence holds them all only in the first.
    expect(a.sentence).toBeGreaterThan(0.99)
    expect(b.sentence).toBeLessThan(0.6)
    expect(supportScore(a)).toBeGreaterThan(supportScore(b))
  })

  test("the title's words count for every sentence, and a question naming the title is flagged", () => {
    const passage = 'It was founded in the year 1871. A school bus stops there.'
    const titled = supportSignals(QUESTION, EVIDENCE, passage, 'Harwell')
    const untitled = supportSignals(QUESTION, EVIDENCE, passage, 'Villages')
    expect(titled.title).toBe(1)
    expect(untitled.title).toBe(0)
    expect(titled.sentence).toBeGreaterThan(untitled.sentence)
    expect(supportScore(titled)).toBeGreaterThan(supportScore(untitled))
  })

  test('a passage about something else is below the threshold, the answering one above', () => {
    const other = supportSignals(
      QUESTION,
      EVIDENCE,
      'Trips to the capital need approval. Hotels are paid.',
      'Travel',
    )
    const answer = supportSignals(
      QUESTION,
      EVIDENCE,
      'Harwell school was founded in the year 1871.',
      'Harwell',
    )
    expect(supportScore(other)).toBeLessThan(SUPPORT_THRESHOLD)
    expect(supportScore(answer)).toBeGreaterThanOrEqual(SUPPORT_THRESHOLD)
  })
})
