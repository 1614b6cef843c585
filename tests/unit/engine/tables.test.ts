import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  answerFromTable,
  answerTable,
  readTables,
  rowCells,
  type TablePassage,
  type TableReader,
  tableQuestion,
} from '../../../src/features/engine/compose/index'
import type { SectionRef } from '../../../src/features/engine/rag/index'
import type { RankedPassage } from '../../../src/features/engine/rank/index'
import { renderTable } from '../../../src/features/ingest/extract/extract.table'
import { FIXTURE_DOCS } from '../../helpers/fixture-data'

// Tables can be asked about (issue 34): questions about a table's values are answered from its rows,
// computed, with the rows cited; where the computation does not apply, the answer says what it found.

/** A CSV file's rows as extraction renders them, cut into passages of `perPassage` lines. */
function passagesOf(csv: string, sectionId: string, perPassage = 10): TablePassage[] {
  const grid = csv
    .trim()
    .split('\n')
    .map((l) => l.split(','))
  const lines = renderTable(grid, null).pieces.flatMap((p) => p.text.split('\n'))
  const out: TablePassage[] = []
  for (let i = 0; i < lines.length; i += perPassage)
    out.push({
      sectionId,
      ordinal: out.length,
      title: 'Rows',
      text: lines.slice(i, i + perPassage).join('\n'),
    })
  return out
}

const PENGUINS = readFileSync(join(FIXTURE_DOCS, 'csv/mwaskom_seaborn-data__penguins.csv'), 'utf8')
const TEAMS = 'Team,Location,Stanley Cups\nBlues,STL,1\nFlyers,PHI,2\nMaple Leafs,TOR,13'
const PEOPLE = 'Name,Age\nJohn Doe,27\nJane Smith,37\nMike Johnson,47'

/** The answer of one table to a question, its pieces joined (citations as the rows' indexes). */
function ask(passages: TablePassage[], question: string) {
  const table = readTables(passages, 100_000).tables[0]!
  const result = answerFromTable(table, tableQuestion(question)!)
  if (!result) return null
  const text = result.pieces.map(
    (p) => `${p.text}${p.rows.length ? ` {${p.rows.join(',')}}` : ''}${p.after ?? ''}`,
  )
  return { text: text.join(' '), short: result.short }
}

describe('rows', () => {
  test('a row line is its header: value pairs; other lines are not rows', () => {
    expect(rowCells('species: Adelie; island: Torgersen; sex: MALE')).toEqual([
      ['species', 'Adelie'],
      ['island', 'Torgersen'],
      ['sex', 'MALE'],
    ])
    expect(rowCells('Lorem, ipsum: sed, do; dolor sit: eiusmod; amet: tempor')).toHaveLength(3)
    expect(rowCells('Note: this is a sentence.')).toBeNull()
    expect(rowCells('Stanley Cups')).toBeNull()
  })

  test('a row cut between two passages at "; " is read whole, and every row once', () => {
    const passages: TablePassage[] = [
      { sectionId: 's1', ordinal: 0, title: '', text: 'a: 1; b: 2; c: 3\na: 4; b: 5;' },
      { sectionId: 's1', ordinal: 1, title: '', text: 'c: 6\na: 7; b: 8; c: 9' },
    ]
    const { tables } = readTables(passages, 100)
    expect(tables).toHaveLength(1)
    expect(tables[0]!.rows.map((r) => r.line)).toEqual([
      'a: 1; b: 2; c: 3',
      'a: 4; b: 5; c: 6',
      'a: 7; b: 8; c: 9',
    ])
    expect(tables[0]!.rows.map((r) => r.passage)).toEqual([0, 0, 1])
  })

  test('rows of other headers start another table; reading stops at the cap and says so', () => {
    const text = 'Sheet1\na: 1; b: 2\na: 3; b: 4\nSheet2\nx: 9; y: 8'
    const { tables, truncated } = readTables([{ sectionId: 's', ordinal: 0, title: '', text }], 100)
    expect(tables.map((t) => t.columns)).toEqual([
      ['a', 'b'],
      ['x', 'y'],
    ])
    expect(truncated).toBe(false)
    expect(readTables([{ sectionId: 's', ordinal: 0, title: '', text }], 2).truncated).toBe(true)
  })
})

describe('questions of a table', () => {
  test('what is computed is told by the words every such question uses', () => {
    const op = (q: string) => tableQuestion(q)?.op
    expect(op('Which penguin species are in the dataset?')).toBe('list')
    expect(op('How many penguins are in the dataset?')).toBe('count')
    expect(op('How many penguins have no recorded body mass?')).toBe('missing')
    expect(op('What is the maximum body mass of the penguins?')).toBe('max')
    expect(op('Which team has won the most Stanley Cups?')).toBe('max')
    expect(op('What is the lowest flipper length?')).toBe('min')
    expect(op('What is the average body mass?')).toBe('mean')
    expect(op('How old is Jane Smith?')).toBe('lookup')
    expect(tableQuestion('Which penguin species are in the dataset?')!.target.map((t) => t.norm)).toEqual([
      'penguin',
      'species',
    ])
  })
})

describe('answers computed from the rows', () => {
  const penguins = passagesOf(PENGUINS, 'penguins')

  test('"which" lists the values of the column it names, each citing its first row where most of its rows are', () => {
    // Chinstrap's first rows (152, 153) end a passage of Adelie rows: it cites the next passage's first.
    expect(ask(penguins, 'Which penguin species are in the dataset?')).toEqual({
      text: 'The table lists 3 penguin species: Adelie (152 rows) {0}, Chinstrap (68 rows) {160}, Gentoo (124 rows) {220}',
      short: 'Adelie, Chinstrap, Gentoo',
    })
  })

  test('"how many" counts rows, rows of a value it names, values of a column, or true values', () => {
    expect(ask(penguins, 'How many penguins are in the dataset?')).toEqual({
      text: 'The table has 344 rows {0}',
      short: '344',
    })
    expect(ask(penguins, 'How many Adelie penguins are there?')?.short).toBe('152')
    expect(ask(passagesOf(TEAMS, 't'), 'How many teams are there?')?.text).toBe(
      'The table lists 3 teams: Blues {0}, Flyers {1}, Maple Leafs {2}',
    )
    // The values are called as the question calls them, up to the word naming the column.
    expect(ask(passagesOf(TEAMS, 't'), 'Which teams appear in the table?')?.text).toStartWith(
      'The table lists 3 teams:',
    )
    const survived = passagesOf('survived,name\n1,a\n0,b\n1,c', 's')
    expect(ask(survived, 'How many passengers survived?')).toEqual({
      text: '2 of the 3 rows have survived 1 {0}',
      short: '2',
    })
  })

  test('where values are missing, the answer says in how many rows, citing them', () => {
    expect(ask(penguins, 'How many penguins have no recorded body mass?')).toEqual({
      text: 'The body_mass_g is missing in 2 of the 344 rows {3,339}',
      short: '2',
    })
    expect(ask(penguins, 'What is the average body mass of the penguins?')).toEqual({
      text: 'The average body_mass_g is 4201.75 over 342 rows {0,10,20}. The body_mass_g of 2 of the 344 rows is missing or not a number',
      short: '4201.75',
    })
  })

  test('the largest and smallest cite their row; "which" names it by the column asked', () => {
    expect(ask(penguins, 'What is the maximum body mass of the penguins?')?.short).toBe('6300')
    expect(ask(penguins, 'What is the lowest flipper length?')?.short).toBe('172')
    expect(ask(passagesOf(TEAMS, 't'), 'Which team has won the most Stanley Cups?')).toEqual({
      text: 'Maple Leafs has the highest Stanley Cups: 13 {2}',
      short: 'Maple Leafs',
    })
  })

  test('a row named by a value is quoted; a number asked of a column of words gets what it holds', () => {
    expect(ask(passagesOf(PEOPLE, 'p'), 'How old is Jane Smith?')).toEqual({
      text: 'Name: Jane Smith; Age: 37 {1}',
      short: null,
    })
    expect(ask(passagesOf(PEOPLE, 'p'), 'What is the age of Mike Johnson?')?.short).toBe('47')
    expect(ask(penguins, 'What is the average island?')?.text).toStartWith(
      'The island column holds no numbers: the table lists 3 island values',
    )
  })
})

describe('which table a question is about', () => {
  const penguins = passagesOf(PENGUINS, 'sec_penguins')
  const iris = passagesOf('sepal_length,species\n5.1,setosa\n7.0,versicolor\n6.3,virginica', 'sec_iris')
  const docs = [
    { documentId: 'doc_penguins', filename: 'seaborn-data/penguins.csv', title: 'seaborn-data/penguins.csv' },
    { documentId: 'doc_iris', filename: 'seaborn-data/iris.csv', title: 'seaborn-data/iris.csv' },
    { documentId: 'doc_text', filename: 'notes.txt', title: 'notes.txt' },
  ]
  const reader: TableReader = {
    documents: () => docs.slice(0, 2),
    passages: (_b, id, max) => {
      const all = id === 'doc_penguins' ? penguins : id === 'doc_iris' ? iris : []
      const out: TablePassage[] = []
      let n = 0
      for (const p of all) {
        if (n >= max) break
        n += p.text.length
        out.push(p)
      }
      return out
    },
  }
  const found = (doc: number, text: string): RankedPassage<SectionRef> => ({
    ref: {
      sectionId: `sec_${doc}`,
      documentId: docs[doc]!.documentId,
      title: docs[doc]!.title,
      filename: docs[doc]!.filename,
    },
    ordinal: 0,
    text,
    start: 0,
    end: text.length,
    score: 1,
    sentences: [],
  })

  test('the table the question names by its file, with its rows cited as the sources', () => {
    const a = answerTable(
      reader,
      'b',
      'Which penguin species are in the dataset?',
      [found(1, iris[0]!.text)],
      3,
    )!
    expect(a.answer).toBe(
      'The table lists 3 penguin species: Adelie (152 rows) [1], Chinstrap (68 rows) [2], Gentoo (124 rows) [3].',
    )
    expect(a.cited.map((c) => c.document.documentId)).toEqual([
      'doc_penguins',
      'doc_penguins',
      'doc_penguins',
    ])
    expect(a.cited[0]!.passage.text).toContain('species: Adelie')
    expect(a.cited[1]!.passage.text).toContain('species: Chinstrap')
    expect(a.cited[2]!.passage.text).toContain('species: Gentoo')
    expect(answerTable(reader, 'b', 'How many penguins are in the dataset?', [], 3)!.answer).toBe(
      'The table has 344 rows [1].',
    )
  })

  test('a table the search found answers a question its headers hold words of; other questions are not its', () => {
    expect(answerTable(reader, 'b', 'Which species are listed?', [found(1, iris[0]!.text)], 3)!.short).toBe(
      'setosa, versicolor, virginica',
    )
    expect(answerTable(reader, 'b', 'Which species are listed?', [], 3)).toBeNull()
    expect(
      answerTable(reader, 'b', 'How many moons does Mars have?', [found(2, 'Mars has two moons.')], 3),
    ).toBeNull()
    // Pinned to another document, the named table is not asked.
    expect(answerTable(reader, 'b', 'How many penguins are in the dataset?', [], 3, ['doc_iris'])).toBeNull()
  })

  test('reading is capped, and the answer says that only the first rows were read', () => {
    const a = answerTable(reader, 'b', 'How many penguins are in the dataset?', [], 3, undefined, {
      rows: 100,
      chars: 1e6,
    })!
    expect(a.answer).toBe('The table has 100 rows [1]. Only the first 100 rows of the table were read.')
  })
})
