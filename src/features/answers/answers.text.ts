import type { ChatMessage } from '../../platform/llm/openai-client'
import { type AskResult, NO_ANSWER, type Source, streamAnswer } from '../engine/engine.service'

/** What the model is told to reply when the sources do not answer the question. */
export const MODEL_DECLINES = 'NO_ANSWER'

/**
 * Whether a model's reply, or as much of it as has arrived, is its decline (it starts with
 * MODEL_DECLINES), may still turn out to be (it is a beginning of it), or is an answer.
 */
export function declineState(text: string): 'declined' | 'maybe' | 'answer' {
  const t = text.trimStart()
  if (t.startsWith(MODEL_DECLINES)) return 'declined'
  return MODEL_DECLINES.startsWith(t) ? 'maybe' : 'answer'
}

/**
 * Reads a model's streamed reply until it is known whether it is the decline, then gives its
 * pieces back with what was read in front (`first`); the model's end (its finish reason) is kept.
 */
export async function openReply(
  pieces: AsyncGenerator<string, string | null | undefined>,
  first: IteratorResult<string, string | null | undefined>,
): Promise<{
  declined: boolean
  pieces: AsyncGenerator<string, string | null | undefined>
  first: IteratorResult<string, string | null | undefined>
}> {
  let held = ''
  let next = first
  while (!next.done && declineState(held + next.value) === 'maybe') {
    held += next.value
    next = await pieces.next()
  }
  if (!next.done) held += next.value
  if (declineState(held) === 'declined') return { declined: true, pieces, first: next }
  if (!next.done) return { declined: false, pieces, first: { done: false, value: held } }
  return { declined: false, pieces: ended(next.value), first: held ? { done: false, value: held } : next }
}

/** A stream already over, that ends as the model's did. */
async function* ended(value: string | null | undefined): AsyncGenerator<string, string | null | undefined> {
  yield* []
  return value
}

/** An answer the model declined: the engine's words for it, no citation, no document used. */
export function modelDeclined(found: AskResult): AskResult {
  return { ...found, answer: NO_ANSWER, answered: false, shortAnswer: null, usedDocs: [] }
}

/** The prompt a model server answers from: numbered sources, then the question. */
export function llmMessages(question: string, sources: Source[]): ChatMessage[] {
  const context = sources.map((s, i) => `[${i + 1}] ${s.title} (${s.filename})\n${s.snippet}`).join('\n\n')
  return [
    {
      role: 'system',
      content:
        'You answer questions using only the numbered sources. Be brief. Cite the sources you use as [n]. ' +
        `If the sources do not contain the answer, reply with exactly ${MODEL_DECLINES} and nothing else.`,
    },
    { role: 'user', content: `Sources:\n${context}\n\nQuestion: ${question}` },
  ]
}

/** The extractive answer as stream pieces. */
export function streamPieces(answer: string): AsyncGenerator<string> {
  return streamAnswer(answer)
}

/** The prompt a model server writes a base's catalog description from: the passages that best describe it. */
export function describeMessages(sources: Source[]): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'Write a one or two sentence catalog description of a document collection from the excerpts given. No preamble.',
    },
    { role: 'user', content: sources.map((s, i) => `[${i + 1}] ${s.filename}: ${s.snippet}`).join('\n') },
  ]
}

/** Keeps only whole sentences; null when there is none. */
export function completeSentences(text: string): string | null {
  const m = text.trim().match(/^[\s\S]*[.!?](?=\s|$)/)
  const s = m?.[0]?.trim() ?? ''
  return /[A-Za-z]/.test(s) && s.split(/\s+/).length >= 3 ? s : null
}

/**
 * A catalog description without a model: one sentence naming what the base holds, built from the
 * titles of the passages that best describe it; null when there is nothing to say.
 */
export function describeFromSources(name: string, documents: number, sources: Source[]): string | null {
  const titles: string[] = []
  for (const s of sources) {
    const t = (s.title || s.filename)
      .replace(/\.[a-z0-9]{1,5}$/i, '')
      .replace(/[_-]+/g, ' ')
      .trim()
    if (t && !titles.includes(t)) titles.push(t)
    if (titles.length === 3) break
  }
  if (titles.length === 0) return null
  const list = titles.length === 1 ? titles[0] : `${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}`
  const what = documents === 1 ? 'one document' : `${documents} documents`
  return `${name} holds ${what}, covering ${list}.`
}

// The end of a sentence: terminal punctuation, closing quotes or brackets, then white space or the end.
const SENTENCE_END = /[.!?…]["'”’)\]]*(?=\s|$)/g

/** Where the last complete sentence of `text` ends (0 when none has ended). */
export function lastSentenceEnd(text: string): number {
  let end = 0
  for (const m of text.matchAll(SENTENCE_END)) end = m.index + m[0].length
  return end
}

/**
 * A model's answer cut by its token budget (finish_reason "length"), trimmed back to its last
 * complete sentence; an answer that ended on its own is kept as it is. Empty when not even one
 * sentence was completed.
 */
export function uncut(text: string, finishReason: string | null): string {
  return finishReason === 'length' ? text.slice(0, lastSentenceEnd(text)).trimEnd() : text
}

/**
 * Relays a model's streamed pieces a whole sentence at a time, so that an answer the token budget
 * cuts (the generator returns finish_reason "length") ends on its last complete sentence and the
 * unfinished one is never sent. Returns whether anything was sent.
 */
export async function* wholeSentences(
  pieces: AsyncGenerator<string, string | null | undefined>,
  first?: IteratorResult<string, string | null | undefined>,
): AsyncGenerator<string, boolean> {
  let held = ''
  let sent = false
  let next = first ?? (await pieces.next())
  while (!next.done) {
    held += next.value
    const end = lastSentenceEnd(held)
    if (end > 0) {
      yield held.slice(0, end)
      sent = true
      held = held.slice(end)
    }
    next = await pieces.next()
  }
  const tail = uncut(held, next.value ?? null)
  if (tail.trim()) {
    yield tail
    sent = true
  }
  return sent
}
