import type { RankedPassage } from '../rank/index'
import { tokenize } from '../text/index'

// "What is X?", "Who is X?", "What does X do?" ask what X is, not for a fact about it: the answer is
// the sentence that defines X ("X is a ...", "X, a ..., ...", "... is called X"), or failing that one
// whose subject is X ("X makes use of ..."). Ranking alone prefers the shortest sentence dense in X,
// which is often a heading or a passing mention.

/** What a definitional question asks about: the index terms of its subject, in order. */
export interface Definitional {
  subject: string[]
}

// The question forms: "what/who is|are|was|were X", "what does|do|did X do|mean|stand for", "define X".
const IS_FORM = /^\s*(what|who)(?:\s+(?:is|are|was|were)|['’]s)\s+(.+?)\s*[?.!]*\s*$/i
const DO_FORM = /^\s*(what)\s+(?:does|do|did)\s+(.+?)\s+(?:do|mean|stand\s+for)\s*[?.!]*\s*$/i
const DEFINE_FORM = /^\s*(define|describe)\s+(.+?)\s*[?.!]*\s*$/i
// A lower-case preposition ends the subject: "pipelines in Haystack" asks about pipelines.
const PREPOSITION =
  /^(?:of|in|on|at|for|from|to|by|with|about|within|inside|into|under|over|between|during|after|before|among|per)$/
// Words that make the question one about a property, not a definition ("What is the largest city?").
const PROPERTY =
  /^(?:first|last|best|worst|most|least|main|only|next|same|other|another|name|number|kind|type|percentage|percent|amount|size|population|age|rate|proportion|one|two|three|four|five|six|seven|eight|nine|ten)$|est$/
const MAX_SUBJECT_TERMS = 4

/** The subject of a definitional question, or null when the question asks something else. */
export function definitional(question: string): Definitional | null {
  const m = IS_FORM.exec(question) ?? DO_FORM.exec(question) ?? DEFINE_FORM.exec(question)
  if (!m) return null
  const who = m[1]!.toLowerCase() === 'who'
  const phrase = m[2]!
  // A possessive asks for a property of its owner ("What was Shrewsbury's conclusion?").
  if (/\p{L}['’]s\b/u.test(phrase)) return null
  const words = tokenize(phrase)
  const subject: string[] = []
  for (const [i, t] of words.entries()) {
    const raw = phrase.slice(t.start, t.end)
    if (PREPOSITION.test(raw)) {
      // "Who is Haystack for?" asks for the preposition's object; "the capital of France", "the
      // founder of CBS" ask for a relation of something else. "Pipelines in Haystack" are pipelines.
      if (
        subject.length === 0 ||
        i === words.length - 1 ||
        /^the$/i.test(phrase.slice(words[0]!.start, words[0]!.end))
      )
        return null
      // What follows must name a thing ("in Haystack"), not go on with a clause ("of Islam called"),
      // and what comes before must not be a passive verb ("What is included in ...").
      const named = (w: (typeof words)[number]) =>
        /^(?:\p{Lu}|(?:a|an|the|of|and)$)/u.test(phrase.slice(w.start, w.end))
      if (
        !words.slice(i + 1).every(named) ||
        /^\p{Ll}.*ed$/u.test(phrase.slice(words[i - 1]!.start, words[i - 1]!.end))
      )
        return null
      break
    }
    if (t.stop) {
      // Articles may lead the subject; other function words ("what is it that") make it no definition.
      if (subject.length === 0 && /^(?:a|an|the)$/i.test(raw)) continue
      return null
    }
    if (PROPERTY.test(t.norm) || /\d/.test(t.norm)) return null
    // "Who is Todd Cravens?" asks who a person is; "Who was RCA president?" asks for a name.
    if (who && !/^\p{Lu}/u.test(raw)) return null
    subject.push(t.term)
  }
  return subject.length > 0 && subject.length <= MAX_SUBJECT_TERMS ? { subject } : null
}

/** How well a sentence answers a definitional question: 2 defines the subject, 1 has it as its subject, 0 neither. */
export function definesSubject(text: string, start: number, end: number, d: Definitional): number {
  const words = tokenize(text, start, end)
  const at = findSubject(words, d.subject)
  if (!at) return 0
  const before = text.slice(start, words[at.first]!.start)
  if (OPENS.test(before) && DEFINES.test(text.slice(words[at.last]!.end, end))) return 2
  if (NAMED.test(before)) return 2
  return LEADS.test(before) ? 1 : 0
}

// After the subject: an aside in brackets may come first, then a copula and a determiner ("is a",
// "are the", "was one of", a possessive: "is Australia's"), "refers to", "means", "stands for", or an
// apposition (", a ...").
const DEFINES =
  /^["'”’]?(?:\s*\([^)]{0,80}\))?(?:\s+(?:is|are|was|were)\s+(?:also\s+)?(?:a|an|the|one|any|some|[^\s'’]+['’]s)\s|\s+(?:refers?\s+to|means|stands\s+for|is\s+defined\s+as|(?:is|are)\s+(?:known|described)\s+as)\s|,\s+(?:a|an|the)\s)/i
// Before a subject that a copula or an apposition defines: nothing, an article or a determiner, "of"
// ("the core of X is a ..."), a possessive ("Apple's X is a ..."), or a mark opening a phrase; not a
// number or an adjective, where X is part of another phrase ("the might of three brontos, the ...").
const OPENS = /(?:^|[,(:;"“'‘]|['’]s|\b(?:a|an|the|of|our|its|their|this|these|that))\s*$/i
// Before the subject: "... is called X", "... known as X", "we present X" (as the sentence's end of a naming).
const NAMED =
  /(?:\b(?:is|are)\s+(?:called|named|termed|known\s+as)|\b(?!(?:he|she|they|we|i|you|it|who|which|that)\s)\p{Ll}{3,}s\s+(?:called|named|known\s+as)|\b(?:introduces?|presents?|present)\s*)\s*(?:a|an|the)?\s*["'“‘]?$/iu
// The subject starts the sentence (after an article or a possessive pronoun): the sentence is about it.
const LEADS = /^\s*(?:(?:the|a|an|our|its|their|this|these)\s+)?["'“‘]?$/i

/** Where the subject's terms first occur in a row (function words between allowed): its first and last token. */
function findSubject(
  words: ReturnType<typeof tokenize>,
  subject: string[],
): { first: number; last: number } | null {
  const content = words.map((w, i) => ({ w, i })).filter((x) => !x.w.stop)
  outer: for (let c = 0; c + subject.length <= content.length; c++) {
    for (let j = 0; j < subject.length; j++) if (content[c + j]!.w.term !== subject[j]) continue outer
    return { first: content[c]!.i, last: content[c + subject.length - 1]!.i }
  }
  return null
}

// Where a definition's phrase ends: a clause boundary (a comma, a bracket, "that", "which" ...).
const PHRASE_END =
  /[,;:(]|\s(?:that|which|who|whom|whose|where|when|while|because|although|and is|but)\s|\.\s*$/i
// A phrase longer than this is not a short answer; cutting it shorter would leave a fragment.
const PHRASE_WORDS = 12

/**
 * What a sentence defining the subject says it is, as a short answer: the phrase after "is" or the
 * apposition's comma, up to the first clause boundary ("Haystack is the open source Python framework,
 * which ..." : "the open source Python framework"). Null when the sentence does not define the
 * subject so, or the phrase is one word or longer than PHRASE_WORDS.
 */
export function definitionPhrase(sentence: string, d: Definitional): string | null {
  const words = tokenize(sentence)
  const at = findSubject(words, d.subject)
  if (!at || !OPENS.test(sentence.slice(0, words[at.first]!.start))) return null
  const after = sentence.slice(words[at.last]!.end)
  const m = DEFINES.exec(after)
  if (!m) return null
  // The phrase starts at the determiner a copula keeps ("is a ...") or after the apposition's comma.
  let rest = after.slice(m.index + m[0].length)
  const det = /(?:a|an|the|one|any|some|[^\s'’]+['’]s)\s$/i.exec(m[0])
  if (det) rest = det[0] + rest
  const end = PHRASE_END.exec(rest)
  const phrase = (end ? rest.slice(0, end.index) : rest).trim()
  const n = phrase.split(/\s+/).length
  return n >= 2 && n <= PHRASE_WORDS ? phrase : null
}

/**
 * The candidates with the best one holding a sentence that defines the subject ("X is a ...", "X, a
 * ...") first, the others in their order; as they are when none does.
 */
export function definingFirst<R>(ranked: RankedPassage<R>[], d: Definitional): RankedPassage<R>[] {
  const at = ranked.findIndex((p) => p.sentences.some((s) => definesSubject(p.text, s.start, s.end, d) === 2))
  return at <= 0 ? ranked : [ranked[at]!, ...ranked.slice(0, at), ...ranked.slice(at + 1)]
}
