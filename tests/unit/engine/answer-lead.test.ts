import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import {
  composeAnswer,
  definesSubject,
  definitional,
  definitionPhrase,
  leading,
} from '../../../src/features/engine/compose/index'
import { Engine } from '../../../src/features/engine/engine.service'
import { splitSentences } from '../../../src/features/engine/text/index'
import { extractText } from '../../../src/features/ingest/extract/extract'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { FIXTURE_DOCS } from '../../helpers/fixture-data'
import { memoryStore } from './fixture'

// An answer never opens with a fragment (issue 34): the short answer leads the answer only when it
// reads as an answer on its own, and a sentence is quoted without the gaps its reference marks left.

describe('the short answer leads only when it reads as one', () => {
  const lead = (question: string, short: string, sentence: string) =>
    leading(short, question, [sentence], definitional(question), null)

  test('a value or a name answering a fact question leads', () => {
    expect(lead('When was Tesla born?', '10 July 1856', 'He was born on 10 July 1856 in Smiljan.')).toBe(
      '10 July 1856',
    )
    expect(
      lead(
        'Who discovered oxygen?',
        'Carl Wilhelm Scheele',
        'Oxygen was discovered by Carl Wilhelm Scheele.',
      ),
    ).toBe('Carl Wilhelm Scheele')
  })

  test('most of a sentence, starting with the question’s own words, does not', () => {
    const sentence =
      'Existing models are developed using distinct frameworks like TensorFlow or PyTorch, and the high-level parameters can be obfuscated by implementation details.'
    const short =
      'developed using distinct frameworks like TensorFlow or PyTorch, and the high-level parameters'
    expect(lead('Which frameworks are existing models developed using?', short, sentence)).toBeNull()
  })

  test('half a possessive does not', () => {
    const sentence = 'The council is Australia’s peak non-government cancer control organisation.'
    expect(
      lead('Which organisation is the peak cancer control organisation?', 'Australia’s', sentence),
    ).toBeNull()
  })

  test('a definitional question is led by what a sentence defining its subject says, not by a word of one mentioning it', () => {
    const mention =
      'It’s remarkable how often a situation with one source of superlinear returns also has the other.'
    expect(lead('What is superlinear return?', 'source', mention)).toBeNull()
    expect(
      lead('What is a revenant?', 'corpse', 'A revenant is a corpse possessed by a demon of pride.'),
    ).toBe('corpse')
  })
})

describe('the same statement is quoted once', () => {
  // Two passages (a PDF's abstract and its body, say), each with one sentence that scores alike.
  const passage = (text: string, score: number) => ({
    ref: null,
    ordinal: 0,
    text,
    start: 0,
    end: text.length,
    score,
    sentences: [{ start: 0, end: text.length, score, hit: 1, typeOk: true }],
  })
  const q = { weights: new Map([['framework', 1]]), want: 0 }

  test('a second sentence whose every content word the first holds is not added', () => {
    const first = 'Existing models are developed using distinct frameworks like TensorFlow or PyTorch.'
    const again = 'Models are developed using frameworks like PyTorch or TensorFlow.'
    expect(composeAnswer([passage(first, 10), passage(again, 9.9)], q).answer).toBe(`${first} [1]`)
  })

  test('a second sentence that says more is added', () => {
    const first = 'Existing models are developed using distinct frameworks like TensorFlow or PyTorch.'
    const more = 'Both frameworks are maintained by large companies.'
    expect(composeAnswer([passage(first, 10), passage(more, 9.9)], q).answer).toBe(`${first} [1] ${more} [2]`)
  })
})

describe('a definition by naming', () => {
  const level = (question: string, sentence: string) =>
    definesSubject(sentence, 0, sentence.length, definitional(question)!)

  test('"... drawn by large white stags called halla" defines the halla; "he called Jerrik" names no one', () => {
    const halla =
      'The Dalish travel in ornately carved wagons known as aravel, drawn by large white stags called halla.'
    expect(level('What are the halla?', halla)).toBe(2)
    expect(level('Who is Jerrik?', 'At dawn he called Jerrik to the gate.')).toBe(0)
  })
})

describe('a heading that is the subject opens its entry', () => {
  const text =
    'Bronto\n\n"There\'s only two things a noble will step aside for: Paragons and angry brontos." —Dwarven saying.\n\nThis hulking beast was bred by the dwarven Shaperate as a beast of burden and food source.\n\nThe bronto took to Jerrik immediately.'
  const spans = splitSentences(text)
  // The search ranks the heading and the sentence having the bronto as its subject; the entry's body it does not.
  const scored = (i: number, score: number) => ({ ...spans[i]!, score, hit: 1, typeOk: false })
  const passage = {
    ref: null,
    ordinal: 0,
    text,
    start: 0,
    end: text.length,
    score: 10,
    sentences: [scored(0, 10), scored(3, 8)],
  }
  const ask = (question: string) =>
    composeAnswer([passage], { weights: new Map([['bronto', 1]]), want: 0, defines: definitional(question) })
      .answer

  test("a definitional question is answered by the entry's first statement, past the quotation under the heading", () => {
    expect(ask('What is a bronto?')).toStartWith(
      'This hulking beast was bred by the dwarven Shaperate as a beast of burden and food source. [1]',
    )
  })

  test('another question is answered as before', () => {
    expect(ask('Who did the bronto take to?')).toStartWith('"There\'s only two things')
  })
})

describe('a definition through a possessive', () => {
  test('"X is Australia’s peak ..." defines X, and says what X is', () => {
    const d = definitional('What is Cancer Council?')!
    const sentence = 'Cancer Council is Australia’s peak non-government cancer control organisation.'
    expect(definitionPhrase(sentence, d)).toBe('Australia’s peak non-government cancer control organisation')
  })
})

describe('answers of real documents open with a whole statement', () => {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 64 * 1024 * 1024, now: () => 0 })
  const PDF = 'pdf/Unstructured-IO_unstructured__layout-parser-paper-fast.pdf'
  const HTML = 'html/deepset-ai_haystack__paul_graham_superlinear.html'

  beforeAll(async () => {
    for (const path of [PDF, HTML]) {
      const bytes = new Uint8Array(readFileSync(join(FIXTURE_DOCS, path)))
      const { sections, title } = await extractText({ bytes, filename: path }, { pdfThread: false })
      for (const [i, s] of sections.entries())
        await engine.onboardSection({
          workspaceId: 'ws_1',
          baseId: 'cor_1',
          documentId: `doc_${path}`,
          sectionId: `sec_${i}_${path}`,
          title: (sections.length === 1 ? title : s.title) ?? path,
          filename: path,
          text: s.text,
        })
    }
  })
  afterAll(() => db.$client.close())

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: the PDF's answer is its sentence, once, without a fragment before it`, async () => {
      const r = await engine.ask('cor_1', {
        question: 'Which frameworks are existing models developed using?',
        strategy,
      })
      expect(r.answered).toBe(true)
      expect(r.answer).toStartWith(
        'Existing models are developed using distinct frameworks like TensorFlow or PyTorch, and the high-level parameters can be obfuscated by implementation details. [1]',
      )
    })

    test(`${strategy}: a definitional question about a page that defines nothing opens with a statement, not one of its words`, async () => {
      const r = await engine.ask('cor_1', { question: 'What is superlinear return?', strategy })
      expect(r.answered).toBe(true)
      expect(r.answer).not.toContain(' — ')
      expect(r.answer).toMatch(/^\p{Lu}/u)
    })
  }
})
