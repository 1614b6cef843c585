const CITATION = /^\s*\[\d+\]$/

/**
 * Splits an answer into the pieces a stream sends: a few words at a time, each piece keeping the
 * white space before its words, so the pieces joined are exactly the answer. A citation such as
 * "[2]" always travels with the word before it.
 */
export function* answerPieces(answer: string, wordsPerPiece = 3): Generator<string> {
  const tokens = answer.match(/\s*\S+/g) ?? []
  let piece = ''
  let words = 0
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    piece += t
    if (!CITATION.test(t)) words++
    const next = tokens[i + 1]
    if (words >= wordsPerPiece && !(next && CITATION.test(next))) {
      yield piece
      piece = ''
      words = 0
    }
  }
  const tail = answer.slice(answer.trimEnd().length)
  if (piece || tail) yield piece + tail
}

/** The answer as an async stream of pieces (for SSE `delta` events); yields to the event loop between. */
export async function* streamAnswer(answer: string, wordsPerPiece = 3): AsyncGenerator<string> {
  for (const piece of answerPieces(answer, wordsPerPiece)) {
    yield piece
    await Promise.resolve()
  }
}
