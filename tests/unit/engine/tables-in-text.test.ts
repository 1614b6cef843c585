import { describe, expect, test } from 'bun:test'
import {
  answerFromTable,
  isRowsText,
  readTables,
  type TablePassage,
  tableQuestion,
} from '../../../src/features/engine/compose/index'

// Tables inside text (issue 34): a Markdown table's rows are read as a CSV's are, so a question about
// its values is answered from them; and "how many" of a value the question names, with a column of
// numbers it names, is that column's number, not a count of rows.

const passage = (text: string, ordinal = 0): TablePassage => ({ sectionId: 's1', ordinal, title: '', text })
const STOCK =
  'Our stock today.\n\nItem | Price | # In stock\n---|---|---\nJuicy Apples | 1.99 | 739\nBananas | 1.89 | 6'
const TEAMS =
  '| Team | Location | Stanley Cups |\n| :--- | :---: | ---: |\n| Blues | STL | 1 |\n| Flyers | PHI | 2 |\n| Maple Leafs | TOR | 13 |'

/** The one answer of the first table of `passages`, its pieces joined (citations as row indexes). */
function ask(passages: TablePassage[], question: string) {
  const table = readTables(passages, 1000).tables[0]!
  const result = answerFromTable(table, tableQuestion(question)!)
  if (!result) return null
  return {
    text: result.pieces
      .map((p) => `${p.text}${p.rows.length ? ` {${p.rows.join(',')}}` : ''}${p.after ?? ''}`)
      .join(' '),
    short: result.short,
  }
}

describe('Markdown tables inside text', () => {
  test("a Markdown table's rows are read as rows headed by its first line, the prose around it left out", () => {
    const { tables } = readTables([passage(STOCK)], 1000)
    expect(tables).toHaveLength(1)
    expect(tables[0]!.columns).toEqual(['Item', 'Price', '# In stock'])
    expect(tables[0]!.rows.map((r) => r.line)).toEqual([
      'Item: Juicy Apples; Price: 1.99; # In stock: 739',
      'Item: Bananas; Price: 1.89; # In stock: 6',
    ])
    expect(isRowsText(STOCK)).toBe(true)
    expect(isRowsText('Prices went up | down, as the table showed.')).toBe(false)
  })

  test('a table whose rows go on in the next passage keeps its header; one without a header gives no rows', () => {
    const [head, rest] = [TEAMS.split('\n').slice(0, 3).join('\n'), TEAMS.split('\n').slice(3).join('\n')]
    const { tables } = readTables([passage(head), passage(rest, 1)], 1000)
    expect(tables[0]!.rows.map((r) => [r.cells[0], r.passage])).toEqual([
      ['Blues', 0],
      ['Flyers', 1],
      ['Maple Leafs', 1],
    ])
    const headless = '|  |  |\n|-|-|\n| Docs | Usage, Guides |\n| Quick Demo | Quickly see it |'
    expect(readTables([passage(headless)], 1000).tables).toEqual([])
  })

  test('questions of a Markdown table are answered from its rows', () => {
    expect(ask([passage(STOCK)], 'What is the price of bananas?')).toEqual({
      text: 'Bananas: Price 1.89 {1}',
      short: '1.89',
    })
    expect(ask([passage(TEAMS)], 'Which team has won the most Stanley Cups?')).toEqual({
      text: 'Maple Leafs has the highest Stanley Cups: 13 {2}',
      short: 'Maple Leafs',
    })
  })
})

describe('"how many" of a value named, with a column of numbers named', () => {
  test('is the number in that column of its row, not a count of its rows', () => {
    expect(ask([passage(TEAMS)], 'How many Stanley Cups have the Blues won?')).toEqual({
      text: 'Blues: Stanley Cups 1 {0}',
      short: '1',
    })
    expect(ask([passage(STOCK)], 'How many Bananas are in stock?')).toEqual({
      text: 'Bananas: # In stock 6 {1}',
      short: '6',
    })
  })

  test('without a column of numbers named, the rows of the value are counted as before', () => {
    expect(ask([passage(STOCK)], 'How many rows have Bananas?')).toEqual({
      text: '1 of the 2 rows have Item Bananas {1}',
      short: '1',
    })
  })
})
