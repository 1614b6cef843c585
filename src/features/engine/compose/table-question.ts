import { type Token, tokenize } from '../text/index'

// What a question asks of a table: which values a column holds, how many rows (or values, or rows
// of a value), which rows lack a column, the largest, smallest, average or total of a column, or the
// rows of a value it names. Told by a few words every such question uses.

/** What is computed from the rows. */
export type TableOp = 'list' | 'count' | 'missing' | 'max' | 'min' | 'mean' | 'sum' | 'lookup'

/** A question read for a table: its operation, its words, and the words naming what it lists or counts. */
export interface TableQuestion {
  op: TableOp
  /** Every word of the question (function words included: "most", "no" and "how many" are some). */
  tokens: Token[]
  /** The words after "which", "what" or "how many" ("which penguin species": penguin, species). */
  target: Token[]
  /** The words naming what it computes for each of ("per species", "on each island", "by class"). */
  group: Token[]
  /** Whether the question calls what it asks about a table ("in the dataset", "the iris table"). */
  namesTable: boolean
}

const MAX =
  /^(?:max|maximum|highest|largest|biggest|longest|heaviest|greatest|most|top|oldest|tallest|widest|deepest|latest)$/
const MIN = /^(?:min|minimum|lowest|smallest|shortest|lightest|least|fewest|youngest|earliest)$/
const MEAN = /^(?:average|mean)$/
const SUM = /^(?:total|sum)$/
// Words saying that a value is not there ("How many penguins have no recorded body mass?").
const MISSING = /^(?:no|missing|without|unknown|lack|lacking|lacks|empty|blank)$/
const LIST = /^(?:list|enumerate)$/
const TABLE_WORDS = /^(?:table|tables|dataset|datasets|data|spreadsheet|sheet|csv|rows|row|records|entries)$/
// Words of an operation are not what is listed or counted.
const OP_WORD = new RegExp(`${MAX.source}|${MIN.source}|${MEAN.source}|${SUM.source}`)

/** What a question asks of a table, or null when it asks nothing a table's rows answer. */
export function tableQuestion(question: string): TableQuestion | null {
  const tokens = tokenize(question)
  const norms = tokens.map((t) => t.norm)
  const namesTable = norms.some((n) => TABLE_WORDS.test(n))
  let op: TableOp | null = null
  let targetFrom = -1
  const howMany = norms.findIndex(
    (n, i) => (n === 'how' && norms[i + 1] === 'many') || (n === 'number' && norms[i + 1] === 'of'),
  )
  const wh = norms.findIndex((n) => n === 'which' || n === 'what')
  if (howMany >= 0) {
    op = norms.some((n) => MISSING.test(n)) ? 'missing' : 'count'
    targetFrom = howMany + 2
  } else if (norms.some((n) => MEAN.test(n))) op = 'mean'
  else if (norms.some((n) => MAX.test(n))) op = 'max'
  else if (norms.some((n) => MIN.test(n))) op = 'min'
  else if (norms.some((n) => SUM.test(n))) op = 'sum'
  else if (norms.some((n) => LIST.test(n)) || wh >= 0) op = 'list'
  else if (norms.length > 0) op = 'lookup'
  if (op === null) return null
  if (targetFrom < 0 && wh >= 0) targetFrom = wh + 1
  const target: Token[] = []
  for (let i = Math.max(0, targetFrom); targetFrom >= 0 && i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.stop || OP_WORD.test(t.norm)) break
    target.push(t)
  }
  // "What is the price of bananas?" names no kind of value to list: it asks for a row.
  if (op === 'list' && target.length === 0 && !norms.some((n) => LIST.test(n))) op = 'lookup'
  return { op, tokens, target, namesTable, group: groupWords(tokens) }
}

// Words before what a computation is made for each of: "per", "by", "for/of/in/on/across each|every".
const EACH = /^(?:each|every)$/
const OVER = /^(?:for|of|in|on|across)$/

/** The words after "per species", "for each island" or "by class", up to a function word: none when none. */
function groupWords(tokens: Token[]): Token[] {
  for (let i = 0; i < tokens.length; i++) {
    const n = tokens[i]!.norm
    const from =
      n === 'per' || n === 'by' ? i + 1 : OVER.test(n) && EACH.test(tokens[i + 1]?.norm ?? '') ? i + 2 : -1
    if (from < 0) continue
    const words: Token[] = []
    for (let j = from; j < tokens.length && !tokens[j]!.stop; j++) words.push(tokens[j]!)
    if (words.length > 0) return words
  }
  return []
}
