import { describe, expect, test } from 'bun:test'
import { planQuery } from '../../../src/features/engine/rank/index'
import {
  SUPPORT_THRESHOLD,
  supportQuestion,
  supportScore,
  supportSignals,
  type TermEvidence,
} from '../../../src/features/engine/support/index'
import { prepareStaticVectors } from '../../../src/features/engine/text/index'

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
    const a = supportSignals(supportQuestion(QUESTION, EVIDENCE), together, 'Education')
    const b = supportSignals(supportQuestion(QUESTION, EVIDENCE), scattered, 'Education')
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
    const titled = supportSignals(supportQuestion(QUESTION, EVIDENCE), passage, 'Harwell')
    const untitled = supportSignals(supportQuestion(QUESTION, EVIDENCE), passage, 'Villages')
    expect(titled.title).toBe(1)
    expect(untitled.title).toBe(0)
    expect(titled.sentence).toBeGreaterThan(untitled.sentence)
    expect(supportScore(titled)).toBeGreaterThan(supportScore(untitled))
  })

  test('a passage about something else is below the threshold, the answering one above', () => {
    const other = supportSignals(
      supportQuestion(QUESTION, EVIDENCE),
      'Trips to the capital need approval. Hotels are paid.',
      'Travel',
    )
    const answer = supportSignals(
      supportQuestion(QUESTION, EVIDENCE),
      'Harwell school was founded in the year 1871.',
      'Harwell',
    )
    expect(supportScore(other)).toBeLessThan(SUPPORT_THRESHOLD)
    expect(supportScore(answer)).toBeGreaterThanOrEqual(SUPPORT_THRESHOLD)
  })

  test('a question asking for a date is flagged when its best sentence offers none', () => {
    const dated = supportSignals(
      supportQuestion(QUESTION, EVIDENCE),
      'Harwell school was founded in the year 1871.',
      'Harwell',
    )
    const undated = supportSignals(
      supportQuestion(QUESTION, EVIDENCE),
      'Harwell school was founded in the year of the flood.',
      'Harwell',
    )
    expect(dated.untyped).toBe(0)
    expect(undated.untyped).toBe(1)
    expect(supportScore(undated)).toBeLessThan(supportScore(dated))
    // A year the question itself names does not answer it.
    const q = 'In what year after 1871 was the Harwell school founded?'
    const plan = planQuery(q)
    const ev: TermEvidence = {
      terms: plan.terms,
      df: plan.terms.map(() => 10),
      passages: 1000,
      soft: plan.soft,
    }
    expect(
      supportSignals(supportQuestion(q, ev), 'Harwell school was founded long after 1871.', 'Harwell')
        .untyped,
    ).toBe(1)
    // A question that names no kind of answer is never flagged.
    const why = 'Why was the Harwell school founded?'
    const whyPlan = planQuery(why)
    const whyEv: TermEvidence = {
      terms: whyPlan.terms,
      df: whyPlan.terms.map(() => 10),
      passages: 1000,
      soft: 0,
    }
    expect(
      supportSignals(supportQuestion(why, whyEv), 'Harwell school was founded by the parish.', 'Harwell')
        .untyped,
    ).toBe(0)
  })

  // A passage holding some of the question's words over two sentences: lexically, it may answer.
  const SCATTERED = 'Harwell is a village with a school. A bus stops there every year.'
  test("the model's signal decides a passage that holds only some of the question's words", () => {
    const q = supportQuestion(QUESTION, EVIDENCE)
    const lexical = supportSignals(q, SCATTERED, 'Villages')
    expect(lexical.model).toBeUndefined()
    expect(supportScore(lexical)).toBeGreaterThanOrEqual(SUPPORT_THRESHOLD)
    // No closer to the question than sentences on no subject: not evidence of an answer.
    expect(supportScore(supportSignals(q, SCATTERED, 'Villages', 0.02))).toBeLessThan(SUPPORT_THRESHOLD)
    // Close in meaning: it is.
    expect(supportScore(supportSignals(q, SCATTERED, 'Villages', 0.6))).toBeGreaterThanOrEqual(
      SUPPORT_THRESHOLD,
    )
    // No vector for the passage: the lexical model decides, as without a server.
    expect(supportScore(supportSignals(q, SCATTERED, 'Villages', null))).toBe(supportScore(lexical))
  })
})
