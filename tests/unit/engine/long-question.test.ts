import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { Engine } from '../../../src/features/engine/engine.service'
import { AnswerType, planQuery, termOf } from '../../../src/features/engine/rank/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { memoryStore, onboardDoc } from './fixture'

// A long question (a pasted paragraph, a whole email) keeps the terms it repeats, what it is about,
// not its first few words, and is not read as a short question (issue 38).

// Every newsletter of the council opens with the same notice (16 content words); what each one is
// about comes after it.
const NOTICE =
  'The council committee met on Tuesday evening and agreed the quarterly budget report. Members thanked residents for their letters, and the minutes of the meeting are published online.'

const newsletters = [
  'The library will stay open later on weekdays from March.',
  'Parking charges near the station rise by ten pence in April.',
  'Volunteers are wanted for the spring litter pick in the park.',
  'The swimming pool closes for two weeks of repairs in June.',
].map((topic) => `${NOTICE} ${topic}`)

// The newsletter the paragraph is pasted from is the longest, so the notice's words alone, counted
// as BM25 counts them, rank it last.
const ESTUARY =
  'Ecologists tagged sturgeon spawning in the estuary below the weir, the first sturgeon recorded there since dredging stopped. Anglers must release any sturgeon caught in the estuary, and the weir will get a fish pass before the salmon run.'
const estuary = `${NOTICE} ${ESTUARY} The harbour trust will fund monitoring of the reed beds and the mudflats where waders feed through the winter.`

const pasted = `${NOTICE} ${ESTUARY}`

async function base() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 64 * 1024 * 1024, now: () => 0 })
  for (const [i, text] of newsletters.entries())
    await onboardDoc(engine, 'cor_l', {
      id: `doc_n${i}`,
      title: `Newsletter ${i}`,
      filename: `n${i}.txt`,
      text,
    })
  await onboardDoc(engine, 'cor_l', {
    id: 'doc_estuary',
    title: 'Newsletter 9',
    filename: 'n9.txt',
    text: estuary,
  })
  return engine
}

describe('a long question', () => {
  test('keeps the terms it repeats (then the first used), in question order, with no answer type', () => {
    const plan = planQuery(pasted)
    expect(plan.terms.length).toBe(16)
    for (const word of ['sturgeon', 'estuary', 'weir']) expect(plan.terms).toContain(termOf(word))
    // The notice's first words fill the rest: the first used win a tie.
    expect(plan.terms[0]).toBe(termOf('council'))
    expect(plan.terms).not.toContain(termOf('online'))
    expect([plan.want, plan.soft, plan.kind.length]).toEqual([AnswerType.none, 0, 0])
    for (const [a, b] of plan.pairs) expect(Math.max(a, b)).toBeLessThan(16)
  })

  test('a pasted paragraph ranks the document it was taken from first, in both strategies', async () => {
    const engine = await base()
    for (const strategy of ['rag', 'cart'] as const) {
      const docs = await engine.ask('cor_l', { question: pasted, k: 3, strategy, distinctDocuments: true })
      expect(docs.sources[0]?.documentId).toBe('doc_estuary')
      const passages = await engine.ask('cor_l', { question: pasted, k: 3, strategy })
      expect(passages.sources[0]?.documentId).toBe('doc_estuary')
    }
  })

  test('a short question is read as before: its terms in order, its answer type', () => {
    const plan = planQuery('When was the sturgeon first recorded in the estuary?')
    expect(plan.terms).toEqual(['sturgeon', 'first', 'record', 'estuary'].map(termOf))
    expect(plan.want & AnswerType.date).toBe(AnswerType.date)
  })
})
