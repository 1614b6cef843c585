/**
 * A conversation with a base: each question's answer streams in as the server writes it; a busy
 * engine (503 with Retry-After) is waited out and tried again rather than failed; a follow-up is
 * sent with the answered turns before it, so that it is understood; an answer can be rated.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { chatStream, sendFeedback } from '../api/answers'
import { ApiError } from '../api/client'
import type { ChatHead, Metrics, Strategy, Turn } from '../api/types'

/** One question and its answer as it arrives. */
export interface Exchange {
  id: number
  question: string
  strategy: Strategy
  status: 'waiting' | 'streaming' | 'done' | 'error' | 'stopped' | 'retrying'
  head?: ChatHead
  text: string
  metrics?: Metrics
  error?: Error
  retry?: { seconds: number; attempt: number; message: string }
  rating?: 'up' | 'down'
  feedback?: 'sending' | 'sent' | Error
}

/** The exchanges so far, whether an answer is being written, and what can be done. */
export interface Conversation {
  exchanges: Exchange[]
  busy: boolean
  /** Asks `question`; false (and nothing asked) while an answer is still being written. */
  ask: (question: string, strategy: Strategy) => boolean
  /** Asks the question of `x` again, now (a busy engine's countdown ended, or "Try now"). */
  retry: (x: Exchange) => void
  /** Gives up waiting for a busy engine. */
  cancelRetry: (x: Exchange) => void
  rate: (x: Exchange, rating: 'up' | 'down') => void
  /** Stops the answer being written. */
  stop: () => void
  /** Starts a new conversation. */
  clear: () => void
  /** Shows another conversation (a kept one reopened), stopping any answer being written. */
  replace: (exchanges: Exchange[]) => void
}

// A busy engine is retried this many times before the page gives up and says so.
const MAX_ATTEMPTS = 30
// Earlier turns sent with a question so that a follow-up is understood (the API takes 20).
const HISTORY_TURNS = 20

/** The conversation with base `baseId`, starting from `initial` (a conversation kept from before). */
export function useConversation(baseId: string, initial: Exchange[] = []): Conversation {
  const [exchanges, setExchanges] = useState<Exchange[]>(initial)
  const abort = useRef<AbortController | null>(null)
  const nextId = useRef(nextIdAfter(initial))
  const busy = exchanges.some(
    (e) => e.status === 'waiting' || e.status === 'streaming' || e.status === 'retrying',
  )

  // Leaving the page stops the answer being written.
  useEffect(() => () => abort.current?.abort(), [])

  const patch = (id: number, change: Partial<Exchange> | ((e: Exchange) => Partial<Exchange>)) =>
    setExchanges((list) =>
      list.map((e) => (e.id === id ? { ...e, ...(typeof change === 'function' ? change(e) : change) } : e)),
    )

  async function run(x: Exchange, history: Turn[], attempt: number) {
    const controller = new AbortController()
    abort.current?.abort()
    abort.current = controller
    patch(x.id, { status: 'waiting', retry: undefined, error: undefined, head: undefined, text: '' })
    let ended = false
    try {
      const events = chatStream(
        baseId,
        { question: x.question, strategy: x.strategy, history: history.length ? history : undefined },
        controller.signal,
      )
      for await (const e of events) {
        if (e.event === 'head') patch(x.id, { head: e.data as ChatHead, status: 'streaming' })
        else if (e.event === 'delta') {
          const piece = (e.data as { delta: string }).delta
          patch(x.id, (cur) => ({ text: cur.text + piece, status: 'streaming' }))
        } else if (e.event === 'done') {
          ended = true
          patch(x.id, { metrics: (e.data as { metrics: Metrics }).metrics, status: 'done' })
        } else if (e.event === 'error') {
          ended = true
          patch(x.id, { error: new Error((e.data as { error: string }).error), status: 'error' })
        }
      }
      if (!ended) {
        patch(x.id, {
          status: 'error',
          error: new Error('The answer stopped before it ended: the connection closed. Ask again.'),
        })
      }
    } catch (err) {
      if (controller.signal.aborted) {
        patch(x.id, { status: 'stopped' })
      } else if (err instanceof ApiError && err.status === 503 && attempt < MAX_ATTEMPTS) {
        patch(x.id, {
          status: 'retrying',
          retry: { seconds: err.retryAfter ?? 1, attempt: attempt + 1, message: err.message },
        })
      } else {
        patch(x.id, { status: 'error', error: err as Error })
      }
    } finally {
      if (abort.current === controller) abort.current = null
    }
  }

  async function rate(x: Exchange, rating: 'up' | 'down') {
    patch(x.id, { rating, feedback: 'sending' })
    try {
      await sendFeedback(baseId, {
        rating,
        question: x.question,
        answer: x.text.slice(0, 20000),
        source_ids: x.head?.sources.map((s) => s.id).slice(0, 20),
        strategy: x.strategy,
      })
      patch(x.id, { feedback: 'sent' })
    } catch (err) {
      patch(x.id, { feedback: err as Error })
    }
  }

  return {
    exchanges,
    busy,
    ask: (question, strategy) => {
      if (busy) return false
      const history = historyOf(exchanges)
      const x: Exchange = { id: nextId.current++, question, strategy, status: 'waiting', text: '' }
      setExchanges((list) => [...list, x])
      void run(x, history, 1)
      return true
    },
    retry: (x) => void run(x, historyOf(exchanges.filter((e) => e.id < x.id)), x.retry?.attempt ?? 1),
    cancelRetry: (x) => patch(x.id, { status: 'stopped', retry: undefined }),
    rate: (x, rating) => void rate(x, rating),
    stop: () => abort.current?.abort(),
    clear: () => {
      abort.current?.abort()
      setExchanges([])
    },
    replace: (list) => {
      abort.current?.abort()
      // Fresh ids: the stopped answer's last patch must not land on an exchange of the new list.
      setExchanges(list.map((x) => ({ ...x, id: nextId.current++ })))
    },
  }
}

/** An id no exchange of `list` has. */
function nextIdAfter(list: Exchange[]): number {
  return list.reduce((max, x) => Math.max(max, x.id), 0) + 1
}

/** The answered turns before a question, as the API takes them (most recent last). */
function historyOf(exchanges: Exchange[]): Turn[] {
  const turns: Turn[] = []
  for (const x of exchanges) {
    if (x.status !== 'done' || !x.head?.answered) continue
    turns.push({ role: 'user', content: x.question.slice(0, 8000) })
    turns.push({ role: 'assistant', content: x.text.slice(0, 8000) })
  }
  return turns.slice(-HISTORY_TURNS)
}
