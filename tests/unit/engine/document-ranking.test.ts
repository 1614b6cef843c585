import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { memoryStore, onboardDoc } from './fixture'

// Paragraphs long enough to be passages of their own.
const paragraph = (s: string) =>
  `${s} ${'The survey team logged the readings every week of the season.'.repeat(3)}`

const focus = [
  'Glacier melt in the Alps doubled over two decades, the survey found.',
  'The melt season now starts in May, and the glacier loses ice until October.',
  'Meltwater from the glacier feeds the valley rivers through the summer.',
  'Models predict the glacier will be half its size by 2060 as melt speeds up.',
]
  .map(paragraph)
  .join('\n\n')

const aside = [
  'A recipe for bread: flour, water, salt and yeast, kneaded for ten minutes.',
  'Glacier melt water, one guest said, makes the best bread of all.',
  'The dough rests overnight before it is shaped and baked in a hot oven.',
  'Serve the loaf warm with butter and a little honey.',
]
  .map(paragraph)
  .join('\n\n')

async function base() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 64 * 1024 * 1024, now: () => 0 })
  await onboardDoc(engine, 'cor_r', { id: 'doc_aside', title: 'Notes', filename: 'aside.txt', text: aside })
  await onboardDoc(engine, 'cor_r', { id: 'doc_focus', title: 'Survey', filename: 'focus.txt', text: focus })
  return engine
}

describe('ranking documents', () => {
  test('a document that keeps returning to the question ranks first, alike in both strategies', async () => {
    const engine = await base()
    const ask = (strategy: 'cart' | 'rag') =>
      engine.ask('cor_r', { question: 'glacier melt', k: 2, strategy, distinctDocuments: true })
    const [cart, rag] = [await ask('cart'), await ask('rag')]
    expect(cart.sources.map((s) => s.documentId)).toEqual(['doc_focus', 'doc_aside'])
    expect(rag.sources.map((s) => s.documentId)).toEqual(['doc_focus', 'doc_aside'])
  })
})
