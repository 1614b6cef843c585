import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { migrations } from '../../../migrations/index'
import {
  type CartEntry,
  type CompileReply,
  type CompileRequest,
  type CompileWorker,
  cartEntry,
  compileCartridge,
} from '../../../src/features/engine/cart/index'
import { type CartStore, Engine } from '../../../src/features/engine/engine.service'
import { contentTerms } from '../../../src/features/engine/text/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { FakeWorker } from '../../helpers/fake-worker'
import { FIXTURE_SQUAD } from '../../helpers/fixture-data'

/** Three short documents with distinct facts; each is one section of its own. */
export const docs = [
  {
    id: 'doc_tesla',
    filename: 'tesla.txt',
    title: 'Nikola Tesla',
    text: `Nikola Tesla was an inventor and electrical engineer. He was born on 10 July 1856 in the village of Smiljan.

Tesla emigrated to the United States in 1884. He worked for Thomas Edison in New York City before striking out on his own. His alternating current induction motor was licensed by George Westinghouse in 1888.

In his later years Tesla lived in the Hotel New Yorker. He died there on 7 January 1943, at the age of 86.`,
  },
  {
    id: 'doc_oxygen',
    filename: 'oxygen.txt',
    title: 'Oxygen',
    text: `Oxygen is a chemical element with the symbol O and atomic number 8. It is the third most abundant element in the universe, after hydrogen and helium.

Carl Wilhelm Scheele discovered oxygen in Uppsala by 1773. Joseph Priestley published his own discovery of the gas in 1774, so he is often given priority.

Liquid oxygen is pale blue. It is used as an oxidizer in rocket engines.`,
  },
  {
    id: 'doc_warsaw',
    filename: 'warsaw.txt',
    title: 'Warsaw',
    text: `Warsaw is the capital and largest city of Poland. It stands on the Vistula River in east-central Poland.

The city was almost completely destroyed during the Second World War. Its historic Old Town was rebuilt after the war and became a World Heritage Site in 1980.`,
  },
]

/** An object store in memory, with the keys it holds exposed for assertions. */
export function memoryStore(): CartStore & { objects: Map<string, Uint8Array> } {
  const objects = new Map<string, Uint8Array>()
  return {
    objects,
    getBytes: async (key) => objects.get(key) ?? null,
    put: async (key, body) => {
      const bytes = body as Uint8Array
      objects.set(key, bytes)
      return { key, size: bytes.length, sha256: '' }
    },
    delete: async (key) => {
      objects.delete(key)
    },
  }
}

/** An engine on a fresh in-memory database with the three documents onboarded into `cor_1`. */
export async function fixtureEngine(cacheBytes = 64 * 1024 * 1024) {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const store = memoryStore()
  const engine = new Engine({ db, store, cacheBytes, now: () => 0 })
  for (const d of docs) await onboardDoc(engine, 'cor_1', d)
  return { db, store, engine }
}

/** A fixture document as a run's group gives it to the index: one section of `ws_1`'s `cor_1`. */
export const sectionInput = (d: { id: string; title: string; filename: string; text: string }) => ({
  workspaceId: 'ws_1',
  baseId: 'cor_1',
  documentId: d.id,
  sectionId: `sec_${d.id}`,
  title: d.title,
  filename: d.filename,
  text: d.text,
})

/** Onboards a one-section document of workspace `ws_1` into a base (section id `sec_<document id>`). */
export function onboardDoc(
  engine: Engine,
  baseId: string,
  d: { id: string; title: string; filename: string; text: string },
) {
  return engine.onboardSection({
    workspaceId: 'ws_1',
    baseId,
    documentId: d.id,
    sectionId: `sec_${d.id}`,
    title: d.title,
    filename: d.filename,
    text: d.text,
  })
}

/**
 * Cart entries from a few real articles: sections of `perSection` paragraphs each, every article
 * also as `copies - 1` copies with shifted numbers (many near-ties), named `<file>:<copy>:<first>`.
 */
export function articleSections(articles: string[], copies: number, perSection: number): CartEntry<string>[] {
  const out: CartEntry<string>[] = []
  for (const file of articles) {
    const paragraphs = readFileSync(resolve(FIXTURE_SQUAD, 'articles', file), 'utf8').split(/\n\s*\n/)
    for (let copy = 0; copy < copies; copy++)
      for (let i = 0; i < paragraphs.length; i += perSection) {
        const text = paragraphs
          .slice(i, i + perSection)
          .join('\n\n')
          .replace(/\b(\d+)\b/g, (n) => String(Number(n) + copy))
        out.push(cartEntry(`${file}:${copy}:${i}`, compileCartridge(text), contentTerms(file)))
      }
  }
  return out
}

/** The fixture's SQuAD questions about these articles, every `every`-th of them, in file order. */
export function articleQuestions(articles: string[], every: number): string[] {
  return readFileSync(resolve(FIXTURE_SQUAD, 'questions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { document: string; question: string })
    .filter((q) => articles.includes(q.document.replace('articles/', '')))
    .filter((_, i) => i % every === 0)
    .map((q) => q.question)
}

/** Two policies an office might keep: the support check's questions are about them (the leave policy is two passages: the office hours, then the leave). */
export const POLICIES = [
  {
    id: 'doc_travel',
    title: 'Travel policy',
    filename: 'travel.md',
    text:
      'Employees book flights through the travel desk at least 14 days before departure. ' +
      'Economy class is used for flights shorter than six hours.',
  },
  {
    id: 'doc_leave',
    title: 'Holidays',
    filename: 'holidays.md',
    text:
      'The office opens at eight in the morning and closes at six in the evening on weekdays. On ' +
      'Saturdays it opens at nine and closes at one, and it stays closed on Sundays and public holidays.\n\n' +
      'Full-time staff have 27 days of paid leave a year, approved by the team lead. Leave is booked in ' +
      'the staff portal, and days not taken by the end of March are lost unless the manager agrees.',
  },
]

/** Three whole squad-dev articles, as the compile thread tests give them to a thread. */
export const articleTexts = ['Warsaw.txt', 'Oxygen.txt', 'Nikola_Tesla.txt'].map((f) =>
  readFileSync(join(FIXTURE_SQUAD, 'articles', f), 'utf8'),
)

/** A compile thread stand-in. */
export class FakeCompileWorker extends FakeWorker<CompileRequest, CompileReply> implements CompileWorker {}
