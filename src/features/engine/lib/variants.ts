import { normWord, stem } from './text'

// Common English near-synonyms (general vocabulary, not drawn from any question set): questions
// paraphrase the text's verbs and nouns ("killed" for "died", "started" for "began").
const GROUPS = `die death dead kill perish|begin start commence launch initiate|end finish conclude cease stop halt
  |big large huge great vast enormous|small little tiny minor|buy purchase acquire|build construct erect
  |create make produce form|establish found|head lead chief|show display exhibit demonstrate|use employ utilize
  |help assist aid support|need require|get obtain receive gain acquire|allow permit|rise increase grow
  |fall decline decrease drop|author writer|job occupation profession career|car automobile vehicle
  |fight battle war combat|attack assault invade|win victory defeat beat triumph|award prize honor honour
  |cost price fee|choose select pick elect|move relocate transfer|marry wed|ill sick disease illness
  |doctor physician|teach educate instruct|student pupil|city town|nation country state|ship vessel boat
  |kind type sort form|main principal primary chief major|famous renowned notable|old ancient
  |amount quantity number|reason cause|result outcome consequence|goal aim purpose objective|speed velocity
  |law statute legislation act|rule govern reign|king monarch ruler|power strength force|home house residence
  |hire employ recruit|quit resign leave|earn make|pay salary wage|sell sold trade|write compose pen
  |invent devise design|discover find|live reside inhabit dwell|born birth|injure wound hurt|permanent lasting`

const RELATED = new Map<string, string[]>()
for (const group of GROUPS.split('|')) {
  const stems = [
    ...new Set(
      group
        .trim()
        .split(/\s+/)
        .map((w) => stem(normWord(w))),
    ),
  ]
  for (const t of stems) RELATED.set(t, [...(RELATED.get(t) ?? []), ...stems.filter((u) => u !== t)])
}

/**
 * Word-family variants of a question's terms: index terms one of which is a prefix of the other
 * ("invent" and "inventor", "govern" and "governor"), which Porter stemming leaves apart. A sentence
 * holding only a variant is weak evidence (it counts like a learned expansion), never a full match.
 */

/** Shortest term (and shortest shared prefix) that has variants: shorter stems are too ambiguous. */
export const VARIANT_MIN = 4

/** The shorter forms of `term` worth looking up: its prefixes of at least VARIANT_MIN characters. */
export function variantPrefixes(term: string): string[] {
  const out: string[] = []
  if (/\d/.test(term)) return out
  for (let n = VARIANT_MIN; n < term.length; n++) out.push(term.slice(0, n))
  return out
}

/**
 * A question's variant terms: for each term of at least VARIANT_MIN characters (not a number), the
 * known terms that extend it and the known terms it extends, minus the question's own terms.
 * `extending` lists known terms starting with a term; `known` tells which strings are terms.
 */
export function variantsOf(
  terms: string[],
  extending: (term: string) => Iterable<string>,
  known: (candidates: string[]) => boolean[],
): string[][] {
  return terms.map((t) => {
    const related = RELATED.get(t) ?? []
    const short = t.length < VARIANT_MIN || /\d/.test(t)
    const candidates = short ? related : [...variantPrefixes(t), ...related]
    const found = candidates.length ? known(candidates) : []
    const out = candidates.filter((_, i) => found[i])
    if (!short) for (const v of extending(t)) out.push(v)
    return out.filter((v) => !terms.includes(v))
  })
}
