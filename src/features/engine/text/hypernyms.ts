import TABLE from '../../../../assets/engine/hypernyms.txt' with { type: 'text' }
import { type Token, UNSET, WH_WORDS, type WordInfo } from './text'

// Noun kinds from WordNet (scripts/build-hypernyms.ts): "What language ..." is answered by a sentence
// offering a kind of language, "Who ..." by one naming a kind of person, "Where ..." a kind of
// place. Parsed on first use.
interface Kinds {
  /** Each noun's two most frequent senses. */
  senses: Map<string, number[]>
  /** Nouns more often another part of speech ("produce", "think"). */
  mostlyOther: Set<string>
  /** Parents of each sense (CSR). */
  up: Uint32Array
  upOff: Uint32Array
  person: number
  place: number
}

let kinds: Kinds | null = null

function table(): Kinds {
  if (kinds) return kinds
  const senses = new Map<string, number[]>()
  const mostlyOther = new Set<string>()
  const up: number[] = []
  const upOff: number[] = [0]
  let inParents = false
  for (const line of TABLE.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    if (line === '%') {
      inParents = true
      continue
    }
    const f = line.split(' ')
    if (inParents) {
      if (f[0] !== '-') for (const p of f) up.push(Number.parseInt(p, 36))
      upOff.push(up.length)
    } else {
      if (f[f.length - 1] === '*') {
        f.pop()
        mostlyOther.add(f[0]!)
      }
      senses.set(
        f[0]!,
        f.slice(1).map((s) => Number.parseInt(s, 36)),
      )
    }
  }
  kinds = {
    senses,
    mostlyOther,
    up: Uint32Array.from(up),
    upOff: Uint32Array.from(upOff),
    person: senses.get('person')![0]!,
    place: senses.get('location')![0]!,
  }
  return kinds
}

/** Builds the table now (about 60 ms) instead of on the first question. */
export function prepareHypernyms(): void {
  table()
}

/** The noun senses of a word in normal form, trying its singular for a plural; undefined when none. */
function nounSenses(norm: string): number[] | undefined {
  const s = table().senses
  let r = s.get(norm)
  if (!r && norm.endsWith('s')) {
    if (norm.endsWith('ies')) r = s.get(`${norm.slice(0, -3)}y`)
    if (!r && norm.endsWith('es')) r = s.get(norm.slice(0, -2))
    r ??= s.get(norm.slice(0, -1))
  }
  return r
}

/** Whether a word is more often another part of speech than a noun (its singular, for a plural). */
function mostlyOther(norm: string): boolean {
  const { senses, mostlyOther: other } = table()
  return other.has(norm) || (!senses.has(norm) && norm.endsWith('s') && other.has(norm.slice(0, -1)))
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

/**
 * Tests senses against the kind a question asks for, remembering its answers; tests are shared by
 * the questions asking for the same kind (see `kindTest`), as the answers never change.
 */
export class KindTest {
  /** Per sense: 0 not known yet, IS or ISNT. Only the kind's own senses are IS to begin with. */
  private readonly state: Uint8Array

  constructor(senses: number[]) {
    const { upOff } = table()
    this.state = new Uint8Array(upOff.length - 1)
    for (const s of senses) this.state[s] = IS
  }

  /** Whether sense `s` is the kind or below it (-1, no sense, never is). */
  has(s: number): boolean {
    if (s < 0) return false
    const known = this.state[s]!
    return known === IS || (known !== ISNT && this.resolve(s))
  }

  /** Resolves a sense from its ancestors (shared by every test) and records the answer. */
  private resolve(s: number): boolean {
    const c = closure(s)
    let is = false
    for (let i = 0; i < c.length && !is; i++) is = this.state[c[i]!] === IS
    this.state[s] = is ? IS : ISNT
    return is
  }
}

// Per sense, once asked: the sense and all its ancestors. The words of a text share a few thousand
// senses, and each closure is a dozen or so numbers.
const closures: (Int32Array | undefined)[] = []

/** A sense and every sense above it in the hypernym hierarchy (which has no cycles). */
function closure(s: number): Int32Array {
  let c = closures[s]
  if (!c) {
    const { up, upOff } = table()
    const all = new Set<number>([s])
    for (let i = upOff[s]!; i < upOff[s + 1]!; i++) for (const a of closure(up[i]!)) all.add(a)
    c = Int32Array.from(all)
    closures[s] = c
  }
  return c
}

const tests = new Map<string, KindTest>()

/** The shared test of a kind (questions mostly ask for a few: a person, a place, a year, a company). */
export function kindTest(senses: number[]): KindTest {
  const key = senses.join(' ')
  let t = tests.get(key)
  if (!t) {
    // Each holds a byte per sense (about 80 KB).
    if (tests.size >= 64) tests.clear()
    t = new KindTest(senses)
    tests.set(key, t)
  }
  return t
}

const IS = 1
const ISNT = 2
