/** Questions to a base: the streamed answer and its rating (`/v1/corpora/{id}/chat/stream`, feedback). */
import { http, ok } from './client'
import { readEvents, type StreamEvent } from './stream'
import type { Corpus, FeedbackReq, Strategy, Turn } from './types'

/** A base answers questions when ready, or while training once some documents are. */
export function servable(b: Corpus): boolean {
  return b.status === 'ready' || (b.status === 'training' && b.documents_ready > 0)
}

/**
 * Asks `question` of base `baseId` and yields the answer's events as they arrive (`head`, `delta`,
 * `done` or `error`). Throws `ApiError` when the server refuses before the stream starts.
 */
export async function* chatStream(
  baseId: string,
  body: { question: string; strategy: Strategy; history?: Turn[] },
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const { data } = await http.POST('/v1/corpora/{corpus_id}/chat/stream', {
    params: { path: { corpus_id: baseId } },
    body,
    headers: { accept: 'text/event-stream' },
    parseAs: 'stream',
    signal,
  })
  yield* readEvents(data)
}

/** Rates an answer. The feedback route has only its unversioned mount (`/corpora/...`). */
export function sendFeedback(corpusId: string, body: FeedbackReq): Promise<{ id: string }> {
  return ok(http.POST('/corpora/{corpus_id}/feedback', { params: { path: { corpus_id: corpusId } }, body }))
}
