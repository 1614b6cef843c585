import { afterEach, describe, expect, test } from 'bun:test'
import { AnswersRepo, type FeedbackRow } from '../../../src/features/answers/answers.repo'
import { answerFeedback } from '../../../src/features/answers/answers.tables'
import { corpora } from '../../../src/features/corpora/corpora.tables'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore } from '../../helpers/stores'

// Ratings of answers on both engines: a rating reads back as written, a failed unit keeps none, and
// the counts by base and UTC day are the same on SQLite and PostgreSQL, the last millisecond of a
// day on that day and the next millisecond on the next.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const DAY = 86_400_000
const MARCH_1 = Date.parse('2026-03-01T00:00:00Z')

function rating(id: string, at: number, rating: 'up' | 'down', corpusId = 'cor_1'): Required<FeedbackRow> {
  return {
    id,
    workspaceId: 'ws_1',
    corpusId,
    userId: 'usr_1',
    keyId: null,
    rating,
    question: 'When did the embargo begin?',
    answer: 'In October 1973 — «ünïcode»',
    comment: null,
    sourceIds: JSON.stringify(['doc_1#p2']),
    strategy: 'rag',
    createdAt: at,
  }
}

async function open(engine: { open(): Promise<OpenStore> }): Promise<{ store: Store; repo: AnswersRepo }> {
  const o = await engine.open()
  opened.push(o)
  const store = o.store
  await store.unit(async () => {
    await store.db
      .insert(store.table(workspaces))
      .values({ id: 'ws_1', name: 'Acme', plan: 'beta', createdAt: MARCH_1, updatedAt: MARCH_1 })
    for (const id of ['cor_1', 'cor_2']) {
      await store.db
        .insert(store.table(corpora))
        .values({ id, workspaceId: 'ws_1', name: id, createdAt: MARCH_1, updatedAt: MARCH_1 })
    }
  })
  return { store, repo: new AnswersRepo(store) }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`ratings of answers on ${engine.name}`, () => {
    test('a rating reads back as written, and a failed unit keeps none', async () => {
      const { store, repo } = await open(engine)
      await store.unit(() => repo.insertFeedback(rating('fb_1', MARCH_1 + 5, 'up')))
      await expect(
        store.unit(async () => {
          await repo.insertFeedback(rating('fb_2', MARCH_1 + 6, 'down'))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await store.db.select().from(store.table(answerFeedback))).toEqual([
        rating('fb_1', MARCH_1 + 5, 'up'),
      ])
    })

    test('ratings count by base and UTC day, a day ending at its last millisecond', async () => {
      const { store, repo } = await open(engine)
      await store.unit(async () => {
        await repo.insertFeedback(rating('fb_1', MARCH_1, 'up'))
        await repo.insertFeedback(rating('fb_2', MARCH_1 + DAY - 1, 'down'))
        await repo.insertFeedback(rating('fb_3', MARCH_1 + DAY - 1, 'up'))
        await repo.insertFeedback(rating('fb_4', MARCH_1 + DAY, 'up'))
        await repo.insertFeedback(rating('fb_5', MARCH_1 + 3, 'down', 'cor_2'))
        // Outside the window asked for.
        await repo.insertFeedback(rating('fb_6', MARCH_1 - 1, 'up'))
        await repo.insertFeedback(rating('fb_7', MARCH_1 + 2 * DAY, 'up'))
      })
      const counts = await repo.feedbackCounts('ws_1', MARCH_1, MARCH_1 + 2 * DAY)
      const key = (c: { corpusId: string; day: string }) => `${c.corpusId} ${c.day}`
      expect(counts.sort((a, b) => key(a).localeCompare(key(b)))).toEqual([
        { corpusId: 'cor_1', day: '2026-03-01', up: 2, down: 1 },
        { corpusId: 'cor_1', day: '2026-03-02', up: 1, down: 0 },
        { corpusId: 'cor_2', day: '2026-03-01', up: 0, down: 1 },
      ])
      expect(await repo.feedbackCounts('ws_other', MARCH_1, MARCH_1 + 2 * DAY)).toEqual([])
    })
  })
}
