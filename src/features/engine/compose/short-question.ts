import { AnswerType, answerType } from '../rank/index'
import { answerKind, type Token, tokenize } from '../text/index'
import { hyphenTerm } from './short-words'

/** What a question wants of a short answer. */
export const Want = {
  /** Not a question a span answers ("why", "how did"): no short answer. */
  none: 0,
  date: 1,
  number: 2,
  person: 3,
  place: 4,
  /** "what"/"which" with or without a kind noun: a name or a noun phrase. */
  thing: 5,
} as const

/** A question read for picking its short answer. */
export interface ShortQuestion {
  want: number
  /** WordNet senses of the kind asked for ("which country": country), empty when none. */
  kind: number[]
  /** Index terms of the question's content words: an answer repeats none of them. */
  terms: Set<string>
  /** The content word right before the wh-word ("to who?": the answer follows it in a sentence). */
  before: string | null
  /** The content word right after the wh-word and its kind noun ("who proclaimed": the answer precedes it). */
  after: string | null
  /** A do-question's last content word, its verb ("what did the army throw"): the answer follows it. */
  last: string | null
  /** The noun naming the kind asked for ("which river"): an answer may repeat it ("the Vistula River"). */
  head: string | null
  /**
   * The question's content terms read as a statement with a hole where the answer goes: those before
   * the hole and those after it. "Who discovered oxygen" puts the hole first ("X discovered oxygen");
   * a question whose wh-phrase is followed by an auxiliary ("what did the army throw", "what was the
   * price of oil") puts it last ("the army threw X").
   */
  left: Set<string>
  right: Set<string>
}

/** Reads what kind of short answer a question asks for. */
export function shortQuestion(question: string): ShortQuestion {
  const tokens = tokenize(question)
  const terms = new Set(tokens.filter((t) => !t.stop).map((t) => t.term))
  // Hyphenated words as a span's words read them ("News-Record": "new-record").
  for (let i = 1; i < tokens.length; i++)
    if (question.slice(tokens[i - 1]!.end, tokens[i]!.start) === '-')
      terms.add(hyphenTerm(`${tokens[i - 1]!.norm}-${tokens[i]!.norm}`))
  const type = answerType(tokens)
  const kind = answerKind(tokens)
  let want: number = Want.none
  let at = -1
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i]!.norm
    at = i
    if (w === 'who' || w === 'whom' || w === 'whose') want = Want.person
    else if (w === 'where') want = Want.place
    else if (w === 'when') want = Want.date
    else if (w === 'how' && type & AnswerType.number) want = Want.number
    else if (w === 'what' || w === 'which')
      want = type & AnswerType.date ? Want.date : type & AnswerType.number ? Want.number : Want.thing
    else if (w === 'why' || w === 'how') want = Want.none
    else {
      at = -1
      continue
    }
    break
  }
  // "Name a luxury model that ...": an imperative asking for a thing.
  if (at < 0 && tokens[0]?.norm === 'name') {
    want = Want.thing
    at = 0
  }
  const anchors = neighbours(tokens, at)
  if (want === Want.thing && at >= 0 && QUANTITIES.test(firstContent(tokens, at + 1))) want = Want.number
  return { want, kind, terms, ...anchors, ...sides(tokens, at, anchors.head) }
}

// Auxiliaries after a wh-phrase that move the answer's slot to the end of the statement.
const AUX = new Set('did does do is was are were has have had can could will would'.split(' '))

/** The question's content terms either side of the answer's slot (see ShortQuestion.left). */
function sides(tokens: Token[], at: number, head: string | null): Pick<ShortQuestion, 'left' | 'right'> {
  const left = new Set<string>()
  const right = new Set<string>()
  if (at < 0) return { left, right }
  let j = at + 1
  if (/^(many|much)$/.test(tokens[j]?.norm ?? '')) j++
  if (KIND_OF.test(tokens[j]?.norm ?? '') && tokens[j + 1]?.norm === 'of') j += 2
  if (tokens[j] && tokens[j]!.term === head) j++
  const last = AUX.has(tokens[j]?.norm ?? '')
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.stop || (i >= at && i < j)) continue
    if (i < at || last) left.add(t.term)
    else right.add(t.term)
  }
  return { left, right }
}

// Nouns naming a quantity: "what was the price of oil" asks for a number.
const QUANTITIES =
  /^(price|prices|cost|costs|speed|distance|length|height|weight|temperature|area|salary|budget|revenue|income|value|capacity|depth|width|score|wage|fee|tax|rent|total|average)$/

/** The first content word from `from` on, in normal form ('' when none). */
function firstContent(tokens: Token[], from: number): string {
  for (let i = from; i < tokens.length; i++) if (!tokens[i]!.stop) return tokens[i]!.norm
  return ''
}

const KIND_OF = /^(kind|kinds|type|types|sort|sorts|form|forms|class|classes)$/

// Auxiliaries after which a question's subject comes before its verb ("what did the army throw"):
// in a sentence the answer follows that verb.
const DO = new Set(['did', 'does', 'do'])

/**
 * Anchors of the answer in the question's word order: the content words either side of the wh-word
 * at `at` (after it, past the noun naming the kind), the noun naming the kind, and the last content
 * word of a do-question.
 */
function neighbours(tokens: Token[], at: number): Pick<ShortQuestion, 'before' | 'after' | 'last' | 'head'> {
  const none = { before: null, after: null, last: null, head: null }
  if (at < 0) return none
  let before: string | null = null
  for (let i = at - 1; i >= 0 && before === null; i--) if (!tokens[i]!.stop) before = tokens[i]!.term
  let j = at + 1
  let head: string | null = null
  // "what year did", "which country has", "how many people": the kind noun, right after.
  if (tokens[at]!.norm === 'how' && /^(many|much)$/.test(tokens[j]?.norm ?? '')) j++
  // Only "what", "which" and "how many" name a kind ("who discovered": "discovered" is the verb).
  if (/^(what|which|name)$/.test(tokens[at]!.norm) || j > at + 1) {
    // "what kind of cells": the kind noun is the one after "kind of".
    if (KIND_OF.test(tokens[j]?.norm ?? '') && tokens[j + 1]?.norm === 'of') j += 2
    if (tokens[j] && !tokens[j]!.stop) head = tokens[j++]!.term
  }
  const doQuestion = DO.has(tokens[j]?.norm ?? '')
  let after: string | null = null
  for (; j < tokens.length && after === null; j++) if (!tokens[j]!.stop) after = tokens[j]!.term
  let last: string | null = null
  if (doQuestion)
    for (let i = tokens.length - 1; i > at && last === null; i--) if (!tokens[i]!.stop) last = tokens[i]!.term
  return { before, after, last, head }
}
