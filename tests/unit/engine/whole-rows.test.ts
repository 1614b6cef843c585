import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { rowCells } from '../../../src/features/engine/compose/index'
import { chunkSection, splitSentences } from '../../../src/features/engine/text/index'
import { extractText } from '../../../src/features/ingest/extract/extract'
import { FIXTURE_DOCS } from '../../helpers/fixture-data'

// A table's rows are whole sentences (issue 34): a passage, and so a citation of rows, starts at the
// start of a row and ends at the end of one, never at "sex: MALE" left over from the row before.

const spans = (text: string) => splitSentences(text).map((s) => text.slice(s.start, s.end))

describe('rows are sentences of their own', () => {
  test("every passage of a CSV's sections starts and ends at a row's boundaries", async () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURE_DOCS, 'csv/mwaskom_seaborn-data__penguins.csv')))
    const { sections } = await extractText({ bytes, filename: 'penguins.csv' }, { pdfThread: false })
    expect(sections.length).toBeGreaterThan(1)
    let passages = 0
    for (const { text } of sections) {
      for (const p of chunkSection(text).passages) {
        passages++
        expect(p.start === 0 || text[p.start - 1] === '\n').toBe(true)
        expect(p.end === text.length || text[p.end] === '\n').toBe(true)
        for (const line of text.slice(p.start, p.end).split('\n'))
          expect(rowCells(line)?.[0]?.[0]).toBe('species')
      }
    }
    expect(passages).toBeGreaterThan(sections.length)
  })

  test('a period inside a cell does not end the row, and each row ends its sentence', () => {
    const rows = [
      'name: Braund, Mr. Owen Harris; note: Paid. Boarded late; age: 22',
      'name: Cumings, Mrs. John Bradley; note: First class. Cabin C85; age: 38',
    ]
    expect(spans(rows.join('\n'))).toEqual(rows)
  })

  test('a line whose "; " parts are not all cells is prose, split at its sentence ends', () => {
    expect(
      spans('Note: prices rose; the company grew; Result: fine. Sales fell in May.\nNext line here.'),
    ).toEqual(['Note: prices rose; the company grew; Result: fine.', 'Sales fell in May.', 'Next line here.'])
  })
})
