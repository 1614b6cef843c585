import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chunkSection, splitParagraphs, splitSentences } from '../../../src/features/engine/text/index'
import { FIXTURE_DATA, FIXTURE_SQUAD } from '../../helpers/fixture-data'
import { splitParagraphsReference, splitSentencesReference } from './sentences-reference'

/** Texts made of pieces every rule of the splitter looks at: ends, quotes, marks, abbreviations, rows, headings. */
function fuzzTexts(count: number): string[] {
  const pieces = [
    'The city grew',
    ' ',
    ' ',
    '. ',
    '.',
    '! ',
    '? ',
    '."',
    '.” ',
    ".' ",
    '.) ',
    '.] ',
    '.[12] ',
    '.[a\nb] ',
    `.[${'x'.repeat(41)}] `,
    '.[] ',
    'Dr. Smith',
    'U.S. ',
    'J. R. R. Tolkien',
    'e.g. this',
    'in 1950. ',
    '3.14',
    '\n',
    '\n\n',
    '\n \t\n',
    '\r\n',
    'History\n',
    'note: a; size: b\n',
    'name: Braund, Mr. Owen; age: 22\n',
    'Note: prices rose; the company grew. Sales',
    ' “Quoted',
    ' (Paren',
    ' 42 items',
    ' élan',
    ' Ébène',
    '\u00a0',
    '\u2028',
    ' • item',
    '- item\n',
    'word, word; word',
    'x'.repeat(90),
    ' lower case',
    'É.',
    'Co. Ltd. ',
  ]
  let seed = 7
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed >>> 8
  }
  return Array.from({ length: count }, () => {
    const n = 1 + (next() % 60)
    let t = ''
    for (let i = 0; i < n; i++) t += pieces[next() % pieces.length]
    return t
  })
}

/** Every text file of the fixtures (articles, Markdown, CSV as text). */
function fixtureTexts(): string[] {
  const articles = join(FIXTURE_SQUAD, 'articles')
  const out = readdirSync(articles).map((f) => readFileSync(join(articles, f), 'utf8'))
  for (const kind of ['md', 'csv']) {
    const dir = join(FIXTURE_DATA, 'docs', kind)
    for (const f of readdirSync(dir)) out.push(readFileSync(join(dir, f), 'utf8'))
  }
  return out
}

describe('the sentence splitter', () => {
  test('splits every fixture and fuzz text into paragraphs and sentences as the regular-expression version does', () => {
    const texts = [...fixtureTexts(), ...fuzzTexts(20_000)]
    let compared = 0
    for (const text of texts) {
      expect(splitSentences(text)).toEqual(splitSentencesReference(text))
      expect(splitParagraphs(text)).toEqual(splitParagraphsReference(text))
      for (const p of splitParagraphs(text)) {
        expect(splitSentences(text, p.start, p.end)).toEqual(splitSentencesReference(text, p.start, p.end))
        compared++
      }
      // From and to in the middle of words and marks too.
      const from = Math.floor(text.length / 3)
      const to = Math.floor((text.length * 2) / 3)
      expect(splitSentences(text, from, to)).toEqual(splitSentencesReference(text, from, to))
    }
    expect(compared).toBeGreaterThan(20_000)
  })

  test('the chunking of a fixture article is unchanged: passages of whole sentences', () => {
    const text = readFileSync(join(FIXTURE_SQUAD, 'articles', 'Warsaw.txt'), 'utf8')
    const { sentences, passages } = chunkSection(text)
    expect(sentences).toEqual(
      splitParagraphs(text).flatMap((p) => splitSentencesReference(text, p.start, p.end)),
    )
    expect(passages.length).toBeGreaterThan(10)
  })
})
