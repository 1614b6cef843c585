import { describe, expect, test } from 'bun:test'
import {
  answerFromTable,
  readTables,
  type TablePassage,
  tableQuestion,
} from '../../../src/features/engine/compose/index'

// Computations for each value of a column (issue 34): "the average body mass per species" is an
// average over each species' rows, each citing a row of it, and rows without a number are counted.

const ROWS = [
  'species: Adelie; island: Dream; body_mass_g: 3000',
  'species: Adelie; island: Biscoe; body_mass_g: NA',
  'species: Gentoo; island: Biscoe; body_mass_g: 5000',
  'species: Gentoo; island: Biscoe; body_mass_g: 4500',
  'species: Gentoo; island: Dream; body_mass_g: 6000',
  'species: Chinstrap; island: Dream; body_mass_g: 3500',
]
// Two passages of three rows: Gentoo's rows are mostly in the second.
const passages: TablePassage[] = [0, 1].map((p) => ({
  sectionId: 's1',
  ordinal: p,
  title: 'Rows',
  text: ROWS.slice(p * 3, p * 3 + 3).join('\n'),
}))

function ask(question: string) {
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

describe('computations for each value of a column', () => {
  test('"per", "for each" and "by" name the column; each value cites where most of its rows are', () => {
    const expected =
      'The average body_mass_g per species: Adelie 3000 (1 row) {0}, Gentoo 5166.67 (3 rows) {3}, Chinstrap 3500 (1 row) {5}. The body_mass_g of 1 of the 6 rows is missing or not a number'
    expect(ask('What is the average body mass per species?')).toEqual({ text: expected, short: null })
    expect(ask('What is the mean body mass for each species?')?.text).toBe(expected)
    expect(ask('Average body mass by species?')?.text).toBe(expected)
  })

  test('the highest and lowest cite the row holding them; a total sums each value’s rows', () => {
    expect(ask('What is the highest body mass on each island?')?.text).toStartWith(
      'The highest body_mass_g per island: Dream 6000 {4}, Biscoe 5000 {2}.',
    )
    expect(ask('What is the lowest body mass per island?')?.text).toStartWith(
      'The lowest body_mass_g per island: Dream 3000 {0}, Biscoe 4500 {3}.',
    )
    expect(ask('What is the total body mass per island?')?.text).toStartWith(
      'The total body_mass_g per island: Dream 12500 (3 rows) {4}, Biscoe 9500 (2 rows) {2}.',
    )
  })

  test('without a column named after "per", the whole table is computed as before', () => {
    expect(ask('What is the average body mass of the penguins?')?.text).toStartWith(
      'The average body_mass_g is 4400 over 5 rows',
    )
    expect(ask('What is the highest body mass paid by a penguin?')?.short).toBe('6000')
  })
})
