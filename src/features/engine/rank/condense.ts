import { isStop, WH_WORDS } from '../text/index'

/** One turn of a conversation. */
export interface Turn {
  role: string
  content: string
}

const SUBJECT = /\b(he|she|it|they|him|them)\b/i
const POSSESSIVE = /\b(his|her|its|their)\b/i
const ELLIPSIS = /^\s*(?:and|what about|how about|and what about|what of)\s+(.+?)\s*\??\s*$/i

/** The last thing the user asked before the current question, if any. */
function lastUserTurn(history: Turn[]): string | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const t = history[i]!
    if (t.role === 'user' && t.content.trim()) return t.content.trim()
  }
  return null
}

/**
 * The key noun phrase of a question: its longest run of capitalised words (a name), else its
 * longest run of content words. Wh-words and a capital only because it starts the question are skipped.
 */
export function keyPhrase(question: string): string | null {
  const words = question
    .replace(/[?!.]+$/, '')
    .split(/\s+/)
    .filter(Boolean)
  const runs: string[][] = []
  let cur: string[] = []
  words.forEach((w, i) => {
    const bare = w.replace(/^[("']+|[)"',;:]+$/g, '')
    const lower = bare.toLowerCase()
    const capital = /^[\p{Lu}\d]/u.test(bare) && !(i === 0 && (WH_WORDS.has(lower) || isStop(lower)))
    const joiner = cur.length > 0 && /^(of|the|de|von|van|and)$/.test(lower)
    if (capital || (joiner && i + 1 < words.length && /^[\p{Lu}]/u.test(words[i + 1]!))) cur.push(bare)
    else {
      if (cur.length) runs.push(cur)
      cur = []
    }
  })
  if (cur.length) runs.push(cur)
  if (runs.length) return runs.reduce((a, b) => (b.length > a.length ? b : a)).join(' ')
  const content = words
    .map((w) => w.replace(/[^\p{L}\p{N}'-]/gu, ''))
    .filter((w) => w && !isStop(w.toLowerCase()) && !WH_WORDS.has(w.toLowerCase()))
  return content.length ? content.slice(-3).join(' ') : null
}

/**
 * Rewrites a follow-up into a standalone question without a model: an elliptical follow-up ("what
 * about Edison?") takes the previous question with its key phrase swapped; a pronoun (he, it, its,
 * ...) is replaced by the previous question's key phrase. A question that needs neither is returned as is.
 */
export function condenseQuestion(question: string, history: Turn[] = []): string {
  const q = question.trim()
  const prev = lastUserTurn(history)
  if (!prev || prev === q) return q
  const phrase = keyPhrase(prev)
  if (!phrase) return q
  const ellipsis = ELLIPSIS.exec(q)
  if (ellipsis) {
    const subject = ellipsis[1]!.replace(/[?.!]+$/, '')
    return prev.includes(phrase)
      ? prev.replace(phrase, subject)
      : `${prev.replace(/[?.!]+$/, '')} ${subject}?`
  }
  if (q.includes(phrase)) return q
  if (POSSESSIVE.test(q)) return q.replace(POSSESSIVE, `${phrase}'s`)
  if (SUBJECT.test(q)) return q.replace(SUBJECT, phrase)
  // A very short question with no subject of its own ("When?", "Why not?") continues the last one.
  if (q.split(/\s+/).length <= 2) return `${q.replace(/[?.!]+$/, '')} ${phrase}?`
  return q
}
