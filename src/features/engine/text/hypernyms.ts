import TABLE from '../../../../assets/engine/hypernyms.txt' with { type: 'text' }
import { type Token, UNSET, WH_WORDS, type WordInfo } from './text'
import { FNV_OFFSET, FNV_PRIME } from './wordscan'

// Noun kinds from WordNet (scripts/build-hypernyms.ts): "What language ..." is answered by a sentence
// offering a kind of language, "Who ..." by one naming a kind of person, "Where ..." a kind of
// place. Indexed on first use, packed: a noun is found through an open-addressing table of where
// each noun line starts (FNV-1a of the word), and its senses are read from its line; the parents of
// each sense are two typed arrays. No string or array per noun is kept (a Map of them
// held about 10 MB of heap, and more on every thread that reads it).
export interface HypernymTable {
  /** Where each noun line starts in TABLE. */
  lines: Uint32Array
  /** Line index + 1 per slot of an open-addressing table over the nouns' FNV-1a hashes (0: empty). */
  slots: Int32Array
  mask: number
  /** Parents of each sense (CSR). */
  up: Uint32Array
  upOff: Uint32Array
  person: number
  place: number
}

let kinds: HypernymTable | null = null

const SPACE = 32
const NEWLINE = 10
const STAR = 42

function table(): HypernymTable {
  if (kinds) return kinds
  const lines: number[] = []
  let at = 0
  // The noun lines, up to the line "%".
  for (;;) {
    const end = TABLE.indexOf('\n', at)
    const stop = end < 0 ? TABLE.length : end
    if (TABLE.charCodeAt(at) === 37 && stop === at + 1) {
      at = stop + 1
      break
    }
    if (stop > at && TABLE.charCodeAt(at) !== 35) lines.push(at)
    if (end < 0) throw new Error('hypernyms.txt: no parents section')
    at = stop + 1
  }
  // The parents, one line per sense: base-36 numbers, or "-" for none.
  const up: number[] = []
  const upOff: number[] = [0]
  while (at < TABLE.length) {
    let end = TABLE.indexOf('\n', at)
    if (end < 0) end = TABLE.length
    if (end > at && TABLE.charCodeAt(at) !== 35) {
      if (TABLE.charCodeAt(at) !== 45)
        for (let from = at; from < end; ) {
          let to = TABLE.indexOf(' ', from)
          if (to < 0 || to > end) to = end
          up.push(base36(from, to))
          from = to + 1
        }
      upOff.push(up.length)
    }
    at = end + 1
  }
  let size = 1
  while (size < lines.length * 2) size *= 2
  const slots = new Int32Array(size)
  for (let i = 0; i < lines.length; i++) {
    let slot = hashAt(TABLE, lines[i]!) & (size - 1)
    while (slots[slot] !== 0) slot = (slot + 1) & (size - 1)
    slots[slot] = i + 1
  }
  kinds = {
    lines: Uint32Array.from(lines),
    slots,
    mask: size - 1,
    up: Uint32Array.from(up),
    upOff: Uint32Array.from(upOff),
    person: 0,
    place: 0,
  }
  kinds.person = sensesAt(kinds, find(kinds, 'person'))![0]!
  kinds.place = sensesAt(kinds, find(kinds, 'location'))![0]!
  return kinds
}

/** The number written in base 36 in TABLE[from, to). */
function base36(from: number, to: number): number {
  let v = 0
  for (let i = from; i < to; i++) {
    const c = TABLE.charCodeAt(i)
    v = v * 36 + (c <= 57 ? c - 48 : c - 87)
  }
  return v
}

/** FNV-1a over a string's code units from `from` until a space, a newline or its end. */
function hashAt(text: string, from: number): number {
  let h = FNV_OFFSET
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === SPACE || c === NEWLINE) break
    h = Math.imul(h ^ c, FNV_PRIME)
  }
  return h
}

/** The index of a noun's line, -1 when the table has no such noun. */
function find(k: HypernymTable, word: string): number {
  const { lines, slots, mask } = k
  for (let at = hashAt(word, 0) & mask; slots[at] !== 0; at = (at + 1) & mask) {
    const line = slots[at]! - 1
    const from = lines[line]!
    let i = 0
    while (i < word.length && TABLE.charCodeAt(from + i) === word.charCodeAt(i)) i++
    if (i !== word.length) continue
    const next = TABLE.charCodeAt(from + i)
    if (next === SPACE || next === NEWLINE || from + i >= TABLE.length) return line
  }
  return -1
}

/** The senses on a noun line (undefined for -1): the base-36 fields after the word, "*" left out. */
function sensesAt(k: HypernymTable, line: number): number[] | undefined {
  if (line < 0) return undefined
  let at = k.lines[line]!
  let end = TABLE.indexOf('\n', at)
  if (end < 0) end = TABLE.length
  at = TABLE.indexOf(' ', at)
  const out: number[] = []
  while (at >= 0 && at < end) {
    let to = TABLE.indexOf(' ', at + 1)
    if (to < 0 || to > end) to = end
    if (!(to === at + 2 && TABLE.charCodeAt(at + 1) === STAR)) out.push(base36(at + 1, to))
    at = to
  }
  return out
}

/** Whether a noun line ends with "*" (the word is more often another part of speech). */
function markedOther(k: HypernymTable, line: number): boolean {
  let end = TABLE.indexOf('\n', k.lines[line]!)
  if (end < 0) end = TABLE.length
  return TABLE.charCodeAt(end - 1) === STAR && TABLE.charCodeAt(end - 2) === SPACE
}

/** Indexes the table now instead of on the first question (or takes `built`, a compile thread's, if none yet). */
export function prepareHypernyms(built?: HypernymTable): HypernymTable {
  kinds ??= built ?? null
  return table()
}

/** The noun senses of a word in normal form, trying its singular for a plural; undefined when none. */
function nounSenses(norm: string): number[] | undefined {
  const k = table()
  let r = sensesAt(k, find(k, norm))
  if (!r && norm.endsWith('s')) {
    if (norm.endsWith('ies')) r = sensesAt(k, find(k, `${norm.slice(0, -3)}y`))
    if (!r && norm.endsWith('es')) r = sensesAt(k, find(k, norm.slice(0, -2)))
    r ??= sensesAt(k, find(k, norm.slice(0, -1)))
  }
  return r
}

/** Whether a word is more often another part of speech than a noun (its singular, for a plural). */
function mostlyOther(norm: string): boolean {
  const k = table()
  const line = find(k, norm)
  if (line >= 0) return markedOther(k, line)
  if (!norm.endsWith('s')) return false
  const single = find(k, norm.slice(0, -1))
  return single >= 0 && markedOther(k, single)
}

/** The most frequent noun sense of a word in normal form, -1 when WordNet has no noun for it. */
export function nounSense(norm: string): number {
  return nounSenses(norm)?.[0] ?? -1
}

/** Whether a word in normal form is mostly a noun: WordNet has a noun for it and it is not mostly a verb or an adjective. */
export function mostlyNoun(norm: string): boolean {
  return nounSense(norm) >= 0 && !mostlyOther(norm)
}

/** nounSense of a scanned word, looked up once per distinct word (the info is memoised). */
export function wordSense(w: WordInfo): number {
  if (w.sense === UNSET) w.sense = nounSense(w.norm)
  return w.sense
}

// Words after "what"/"which" passed over on the way to the noun that names the kind ("what type of
// music", "what other event"), and nouns too vague to be one.
const LEADS = new Set(
  'type types kind kinds sort sorts form forms name names thing things part other one way example'.split(' '),
)
const LINKS = new Set(['is', 'was', 'are', 'were', 'the', 'a', 'an'])
const VAGUE = new Set(
  'thing entity object part way something one name term word aspect item role reason'.split(' '),
)

/**
 * The senses of the kind of thing a question asks for: a person for "who", a place for "where", the
 * noun after "what"/"which" for those ("what natural phenomenon" asks for a phenomenon); empty when
 * none.
 */
export function answerKind(tokens: Token[]): number[] {
  for (let i = 0; i < tokens.length - 1; i++) {
    const w = tokens[i]!.norm
    if (!WH_WORDS.has(w)) continue
    // The first wh-word decides: "When did Doctor Who start?" asks for a date, not a person.
    if (w === 'who' || w === 'whom') return [table().person]
    if (w === 'where') return [table().place]
    if (w !== 'what' && w !== 'which') return []
    let j = i + 1
    // "what is the ...", not "what did Luther ...".
    while (j < tokens.length && LINKS.has(tokens[j]!.norm)) j++
    // The last of at most two nouns in a row is the head ("which NFL team").
    let head = -1
    for (let n = 0; j < tokens.length && n < 2; ) {
      const t = tokens[j]!
      if (LEADS.has(t.norm)) {
        j += tokens[j + 1]?.norm === 'of' ? 2 : 1
        continue
      }
      // A second word must be a noun first of all ("what process produces", not "produce").
      if (t.stop || !nounSenses(t.norm) || (n > 0 && mostlyOther(t.norm))) break
      head = j++
      n++
    }
    if (head < 0 || VAGUE.has(tokens[head]!.norm)) return []
    return nounSenses(tokens[head]!.norm)!.slice()
  }
  return []
}
