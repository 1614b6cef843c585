import { porterStem as stemmer } from './porter'
import { WordTable } from './word-table'
import { ftsTerm, wordCharAt, wordEnd, wordHash } from './wordscan'

/**
 * English function words and question words. They carry no evidence about which sentence answers a
 * question, so they are dropped from index terms and from queries alike.
 */
const STOP = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being
  below between both but by can cannot could did didn't do does doesn't doing don't down during each few for
  from further had has have having he her here hers herself him himself his how i if in into is isn't it its
  itself let me more most my myself no nor not of off on once only or other ought our ours ourselves out over
  own same she should so some such than that that's the their theirs them themselves then there these they
  this those through to too under until up very was wasn't we were weren't what when where which while who
  whom whose why will with won't would you your yours yourself yourselves s t d ll re ve m o y
  many much called name named one kind type does`
    .split(/\s+/)
    .filter(Boolean),
)

/** Words that start a question and tell what kind of answer is wanted; never index terms. */
export const WH_WORDS = new Set(['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how'])

const stemCache = new Map<string, string>()

/** Porter stem of a lower-case word, memoised: the vocabulary of a corpus is small, stemming is not. */
export function stem(word: string): string {
  let s = stemCache.get(word)
  if (s === undefined) {
    s = stemOnce(word)
    if (stemCache.size > 200_000) stemCache.clear()
    stemCache.set(word, s)
  }
  return s
}

/** stem() without its cache, for tables read once (the synonyms' 130,000 words would fill it). */
export function stemOnce(word: string): string {
  return /^\d/.test(word) || word.length < 3 ? word : stemmer(word)
}

/** True for a lower-case word that carries no evidence on its own. */
export function isStop(word: string): boolean {
  return STOP.has(word)
}

/** One word of a text: its lower-case normal form, its index term (stem) and where it is. */
export interface Token {
  norm: string
  term: string
  start: number
  end: number
  stop: boolean
}

// Past forms Porter cannot reach, mapped to their base so "won" finds "win" and "began" finds "begin".
// A Map, not an object: words such as "constructor" or "__proto__" must not reach Object.prototype.
const IRREGULAR = new Map<string, string>(
  `arose:arise awoke:awake bore:bear borne:bear beat:beat became:become began:begin begun:begin bent:bend
  bit:bite bitten:bite blew:blow blown:blow broke:break broken:break brought:bring built:build burnt:burn
  bought:buy caught:catch chose:choose chosen:choose came:come dealt:deal dug:dig drew:draw drawn:draw
  drove:drive driven:drive drank:drink ate:eat eaten:eat fell:fall fallen:fall fed:feed felt:feel fought:fight
  found:find fled:flee flew:fly flown:fly forbade:forbid forgot:forget forgotten:forget froze:freeze
  frozen:freeze got:get gotten:get gave:give given:give went:go gone:go grew:grow grown:grow hung:hang
  heard:hear hid:hide hidden:hide held:hold kept:keep knew:know known:know laid:lay led:lead left:leave
  lent:lend lost:lose made:make meant:mean met:meet paid:pay rode:ride ridden:ride rang:ring
  rose:rise risen:rise ran:run said:say saw:see seen:see sought:seek sold:sell sent:send shook:shake
  shot:shoot shut:shut sang:sing sung:sing sank:sink sat:sit slept:sleep spoke:speak spoken:speak
  spent:spend spun:spin split:split spread:spread stood:stand stole:steal stolen:steal stuck:stick
  struck:strike swore:swear sworn:swear swept:sweep swam:swim swung:swing took:take taken:take taught:teach
  tore:tear torn:tear told:tell thought:think threw:throw thrown:throw understood:understand woke:wake
  wore:wear worn:wear won:win wrote:write written:write died:die dies:die dying:die
  european:europe american:america african:africa asian:asia french:france british:britain english:england
  german:germany chinese:china japanese:japan indian:india italian:italy spanish:spain russian:russia
  polish:poland roman:rome mongol:mongolia mongolian:mongolia mongols:mongolia australian:australia
  canadian:canada mexican:mexico egyptian:egypt arabian:arabia scottish:scotland irish:ireland
  swedish:sweden greek:greece turkish:turkey persian:persia californian:california serbian:serbia
  croatian:croatia austrian:austria hungarian:hungary korean:korea brazilian:brazil dutch:netherlands
  danish:denmark norwegian:norway portuguese:portugal israeli:israel iranian:iran iraqi:iraq syrian:syria
  saudi:arabia soviet:ussr byzantine:byzantium venetian:venice parisian:paris`
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => p.split(':') as [string, string]),
)

// normWord's patterns, made once (a regular expression literal is a new object each time it is evaluated).
const NON_ASCII = /[^\u0020-\u007e]/
const MARKS = /\p{M}/gu
const DECADE = /^\d0s$/
const DECIMAL = /^\d+\.\d+$/
const DOTS = /\./g
const COMMAS = /,/g

/** Normalises one matched word: lower case, no accents, no possessive 's, no inner dots or commas. */
export function normWord(raw: string): string {
  let w = raw.toLowerCase()
  // Fold accents so "Gospic" finds "Gospić" (as FTS5's remove_diacritics does).
  if (NON_ASCII.test(w)) w = w.normalize('NFKD').replace(MARKS, '').replaceAll('’', "'")
  if (w.endsWith("'s")) w = w.slice(0, -2)
  // Contractions of function words (couldn't, he'd, they've) are function words.
  const apos = w.indexOf("'")
  if (apos > 0 && (STOP.has(w.slice(0, apos)) || w.endsWith("n't"))) return 'the'
  if (DECADE.test(w)) w = `19${w}` // "the 70s" is how questions say "the 1970s"
  w = IRREGULAR.get(w) ?? w
  if (w.includes('.') && !DECIMAL.test(w)) w = w.replace(DOTS, '')
  if (w.includes(',')) w = w.replace(COMMAS, '')
  return w
}

/** One index term, shared by every word that stems to it; `mark`/`id` let a compiler number it. */
export interface TermSlot {
  term: string
  /** The term as an FTS5 row holds it (ftsTerm), made once a term rather than once a word indexed. */
  fts: string
  mark: number
  id: number
}

/**
 * What a raw word is: its normal form, index term (its slot), and whether it is a function word.
 * `sense` caches its WordNet noun sense for hypernyms.ts, `kind`/`kindFirst` its token kinds inside
 * and at the start of a sentence for query.ts (each UNSET until first asked).
 */
export interface WordInfo {
  /** The word as the text spells it. */
  raw: string
  norm: string
  term: string
  stop: boolean
  slot: TermSlot
  sense: number
  kind: number
  kindFirst: number
}

/** A memo field of WordInfo (sense, kind, kindFirst) not filled yet. */
export const UNSET = -2
const slots = new Map<string, TermSlot>()
// Normalising and stemming cost more than a look-up, and texts repeat their words. Words are cached
// by their characters (WordTable), so a scan finds a word it has seen without making a string of it:
// its info by its index, and the FTS5 form of a content word (null for a stop word) beside it, read
// by a run's chunking without touching the info.
const words = new WordTable()
const infos: WordInfo[] = []
const contentFts: (string | null)[] = []
/** Words cached at most (the cache starts again past it). */
const MAX_WORDS = 200_000
let marks = 0

/** Forgets the words cached. */
function clearWords(): void {
  words.clear()
  infos.length = 0
  contentFts.length = 0
}

/**
 * A fresh mark for numbering term slots (a cartridge compile, a search); marks are never reused.
 * The slot table is trimmed here, between uses: cleared in the middle of one, a term could get two
 * slots. The word cache goes with it, as cached words hold their slots.
 */
export function nextMark(): number {
  if (slots.size > 200_000) {
    slots.clear()
    clearWords()
  }
  return ++marks
}

/** The slot shared by every word of an index term. */
export function termSlot(term: string): TermSlot {
  let slot = slots.get(term)
  if (!slot) {
    slot = { term, fts: ftsTerm(term), mark: -1, id: -1 }
    slots.set(term, slot)
  }
  return slot
}

/** The normal form, index term and stop flag of a raw word. */
function wordInfo(raw: string): WordInfo {
  const norm = normWord(raw)
  const stop = STOP.has(norm) || WH_WORDS.has(norm)
  const term = stop ? norm : stem(norm)
  return { raw, norm, term, stop, slot: termSlot(term), sense: UNSET, kind: UNSET, kindFirst: UNSET }
}

/** The cache index of the word text[start, end), whose hash is `h` (its info worked out the first time). */
function wordAt(text: string, start: number, end: number, h: number): number {
  const at = words.find(text, start, end, h)
  if (at >= 0) return at
  // Safe at any time: the words cached again later get the same slots.
  if (words.size >= MAX_WORDS) clearWords()
  const info = wordInfo(text.slice(start, end))
  const added = words.add(text, start, end, h)
  infos[added] = info
  contentFts[added] = info.norm.length > 0 && !info.stop ? info.slot.fts : null
  return added
}

/**
 * Calls `fn` for every word starting in text[from, to) with its info and offsets (a word may run on
 * past `to`), allocating nothing per word it has seen before.
 */
export function scanWords(
  text: string,
  from: number,
  to: number,
  fn: (w: WordInfo, start: number, end: number) => void,
): void {
  let i = from
  while (i < to) {
    const c = wordCharAt(text, i)
    if (c === 0) {
      i++
      continue
    }
    const end = wordEnd(text, i)
    const w = infos[wordAt(text, i, end, wordHash)]!
    if (w.norm.length > 0) fn(w, i, end)
    i = end
  }
}

/**
 * Adds the FTS5 form (TermSlot.fts) of each content word starting in text[from, to) to `out`:
 * scanWords' loop without its call a word, for a run's chunking (the words of every text it indexes).
 */
export function ftsTerms(text: string, from: number, to: number, out: string[]): void {
  let i = from
  while (i < to) {
    if (wordCharAt(text, i) === 0) {
      i++
      continue
    }
    const end = wordEnd(text, i)
    const fts = contentFts[wordAt(text, i, end, wordHash)]
    if (fts !== null && fts !== undefined) out.push(fts)
    i = end
  }
}

/** Every word of `text` between `from` and `to`, with offsets into `text`. */
export function tokenize(text: string, from = 0, to = text.length): Token[] {
  const out: Token[] = []
  scanWords(text, from, to, (w, start, end) => {
    out.push({ norm: w.norm, term: w.term, start, end, stop: w.stop })
  })
  return out
}

/** The index terms (stems of content words) of a text, in order, repeats kept. */
export function contentTerms(text: string, from = 0, to = text.length): string[] {
  const out: string[] = []
  scanWords(text, from, to, (w) => {
    if (!w.stop) out.push(w.term)
  })
  return out
}

/** Counts the words of a string the way the answer-length metric does (white-space separated). */
export function wordCount(s: string): number {
  const t = s.trim()
  return t.length === 0 ? 0 : t.split(/\s+/).length
}
