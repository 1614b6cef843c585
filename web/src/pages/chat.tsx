/**
 * Chat with a ready base: each answer streams in as the server writes it, cites its passages by
 * number, says honestly when the base does not hold the answer, and waits out a busy engine (503
 * with Retry-After) with a countdown instead of failing.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { BaseHead, ChatHead, Metrics, Source, Strategy, Turn } from '../api/answers'
import { sendFeedback, servable } from '../api/answers'
import { ApiError, api } from '../api/client'
import { postStream } from '../api/stream'
import { CitedText, SourceDialog, SourceList } from '../components/citations'
import { RetryCountdown } from '../components/retry-countdown'
import { Async, Button, Empty, ErrorBox, PageHeader } from '../components/ui'
import { fmtMs } from '../lib/format'
import { useLoad } from '../lib/use-load'
import '../styles/chat.css'

/** One question and its answer as it arrives. */
interface Exchange {
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

// A busy engine is retried this many times before the page gives up and says so.
const MAX_ATTEMPTS = 30
// Earlier turns sent with a question so that a follow-up is understood (the API takes 20).
const HISTORY_TURNS = 20

/** The chat page of a base (`/console/bases/:id/chat`). */
export function Chat({ id = '' }: { id?: string }) {
  const base = useLoad((signal) => api<BaseHead>(`/corpora/${encodeURIComponent(id)}`, { signal }), [id])
  return (
    <>
      <PageHeader title="Chat" lead={base.data ? `Ask ${base.data.name}` : undefined}>
        <a class="btn btn-plain" href={`/console/bases/${encodeURIComponent(id)}`}>
          Documents
        </a>
        <a class="btn btn-plain" href={`/console/bases/${encodeURIComponent(id)}/compare`}>
          Compare strategies
        </a>
      </PageHeader>
      <Async load={base}>
        {(b) =>
          servable(b) ? (
            <Conversation baseId={id} />
          ) : (
            <Empty title="This base is not ready for questions yet">
              <p>
                {b.n_documents === 0
                  ? 'Upload documents, then onboard them.'
                  : 'Onboard its documents first; questions open as soon as some are ready.'}{' '}
                <a href={`/console/bases/${encodeURIComponent(id)}`}>Go to the base</a>
              </p>
            </Empty>
          )
        }
      </Async>
    </>
  )
}

function Conversation({ baseId }: { baseId: string }) {
  const [exchanges, setExchanges] = useState<Exchange[]>([])
  const [question, setQuestion] = useState('')
  const [strategy, setStrategy] = useState<Strategy>('cart')
  const [open, setOpen] = useState<{ n: number; source: Source } | null>(null)
  const abort = useRef<AbortController | null>(null)
  const nextId = useRef(1)
  const endRef = useRef<HTMLDivElement>(null)
  const busy = exchanges.some(
    (e) => e.status === 'waiting' || e.status === 'streaming' || e.status === 'retrying',
  )

  // Leaving the page stops the answer being written.
  useEffect(() => () => abort.current?.abort(), [])
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'nearest' })
  }, [exchanges.length])

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
      const events = postStream(`/corpora/${encodeURIComponent(baseId)}/chat/stream`, {
        json: { question: x.question, strategy: x.strategy, history: history.length ? history : undefined },
        signal: controller.signal,
      })
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

  function ask(ev: Event) {
    ev.preventDefault()
    const q = question.trim()
    if (!q || busy) return
    const history = historyOf(exchanges)
    const x: Exchange = { id: nextId.current++, question: q, strategy, status: 'waiting', text: '' }
    setExchanges((list) => [...list, x])
    setQuestion('')
    void run(x, history, 1)
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

  return (
    <div class="chat">
      <section class="chat-log" aria-label="Conversation">
        {exchanges.length === 0 ? (
          <Empty title="Ask the first question">
            <p>Answers come from this base's documents only, with the passages they used.</p>
          </Empty>
        ) : (
          exchanges.map((x) => (
            <ExchangeView
              key={x.id}
              x={x}
              onCite={(i) => {
                const s = x.head?.sources[i]
                if (s) setOpen({ n: i + 1, source: s })
              }}
              onRate={(r) => rate(x, r)}
              onRetry={() => run(x, historyOf(exchanges.filter((e) => e.id < x.id)), x.retry?.attempt ?? 1)}
              onCancelRetry={() => patch(x.id, { status: 'stopped', retry: undefined })}
            />
          ))
        )}
        <div ref={endRef} />
      </section>
      <form class="composer card" onSubmit={ask}>
        <fieldset class="strategy">
          <legend>Strategy</legend>
          <label class="check">
            <input
              type="radio"
              name="strategy"
              value="cart"
              checked={strategy === 'cart'}
              onChange={() => setStrategy('cart')}
            />
            Cartridges (cart)
          </label>
          <label class="check">
            <input
              type="radio"
              name="strategy"
              value="rag"
              checked={strategy === 'rag'}
              onChange={() => setStrategy('rag')}
            />
            Retrieval (rag)
          </label>
        </fieldset>
        <div class="field">
          <label for="chat-question">Question</label>
          <textarea
            id="chat-question"
            rows={2}
            maxLength={4000}
            value={question}
            placeholder="Ask something the documents answer"
            aria-describedby="chat-question-hint"
            onInput={(e) => setQuestion(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter asks; Shift+Enter starts a new line.
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
                e.preventDefault()
                e.currentTarget.form?.requestSubmit()
              }
            }}
          />
          <p class="hint" id="chat-question-hint">
            Enter to ask, Shift+Enter for a new line. Follow-ups are read with the conversation so far.
          </p>
        </div>
        <div class="row">
          <Button type="submit" variant="primary" disabled={busy || !question.trim()}>
            Ask
          </Button>
          {busy && <Button onClick={() => abort.current?.abort()}>Stop</Button>}
          {exchanges.length > 0 && !busy && (
            <Button onClick={() => setExchanges([])}>New conversation</Button>
          )}
        </div>
      </form>
      <SourceDialog source={open} baseId={baseId} onClose={() => setOpen(null)} />
    </div>
  )
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

function ExchangeView(props: {
  x: Exchange
  onCite: (index: number) => void
  onRate: (rating: 'up' | 'down') => void
  onRetry: () => void
  onCancelRetry: () => void
}) {
  const { x } = props
  const declined = x.head?.answered === false
  const fallback = x.head?.fallback ? x.head : x.metrics?.fallback ? x.metrics : null
  const writing = x.status === 'waiting' || x.status === 'streaming'
  return (
    <article class="exchange" aria-label={`Question: ${x.question}`}>
      <div class="bubble bubble-user">
        <span class="visually-hidden">You asked: </span>
        {x.question}
        <span class="badge strategy-badge">{x.strategy}</span>
      </div>
      <div class={`bubble bubble-answer${declined ? ' declined' : ''}`} aria-busy={writing}>
        {x.status === 'waiting' && (
          <p class="muted" role="status">
            <span class="spinner" aria-hidden="true" /> Looking through the documents…
          </p>
        )}
        {x.status === 'retrying' && x.retry && (
          <RetryCountdown
            seconds={x.retry.seconds}
            attempt={x.retry.attempt}
            message={`The answer engine is busy: ${x.retry.message}`}
            onRetry={props.onRetry}
            onCancel={props.onCancelRetry}
          />
        )}
        {declined && (
          <p class="declined-title">
            <span class="badge badge-warn">Not in this base</span>
          </p>
        )}
        {fallback && (
          <p class="alert alert-warn fallback" role="note">
            Answered without the model server: {fallback.fallback_reason ?? 'the extractive answer is shown.'}
          </p>
        )}
        {(x.text || x.status === 'streaming') && (
          <p class="answer-text" aria-live={writing ? 'polite' : undefined}>
            {x.head && !declined ? (
              <CitedText text={x.text} sources={x.head.sources} onCite={props.onCite} />
            ) : (
              x.text
            )}
            {writing && <span class="caret" aria-hidden="true" />}
          </p>
        )}
        {x.error && <ErrorBox error={x.error} />}
        {x.status === 'stopped' && <p class="muted">Stopped.</p>}
        {x.head && x.head.sources.length > 0 && !declined && (
          <SourceList sources={x.head.sources} onOpen={props.onCite} />
        )}
        {x.head && declined && x.head.sources.length > 0 && (
          <details class="closest">
            <summary>Closest passages (they do not answer the question)</summary>
            <SourceList sources={x.head.sources} onOpen={props.onCite} label="Closest passages" />
          </details>
        )}
        {x.status === 'done' && (
          <div class="answer-foot">
            {x.metrics && (
              <p class="metrics muted">
                {x.metrics.strategy} · {fmtMs(x.metrics.ttft_ms)} to first words ·{' '}
                {fmtMs(x.metrics.latency_ms)} in all{x.metrics.generator ? ` · ${x.metrics.generator}` : ''}
              </p>
            )}
            <Feedback x={x} onRate={props.onRate} />
          </div>
        )}
      </div>
    </article>
  )
}

function Feedback({ x, onRate }: { x: Exchange; onRate: (r: 'up' | 'down') => void }) {
  const sending = x.feedback === 'sending'
  return (
    <fieldset class="feedback">
      <legend class="visually-hidden">Rate this answer</legend>
      <button
        type="button"
        class="btn btn-plain btn-small"
        aria-pressed={x.rating === 'up'}
        disabled={sending}
        onClick={() => onRate('up')}
      >
        <Thumb /> Good answer
      </button>
      <button
        type="button"
        class="btn btn-plain btn-small"
        aria-pressed={x.rating === 'down'}
        disabled={sending}
        onClick={() => onRate('down')}
      >
        <Thumb down /> Bad answer
      </button>
      {x.feedback === 'sent' && (
        <span class="muted" role="status">
          Thanks: your rating was recorded.
        </span>
      )}
      {x.feedback instanceof Error && <ErrorBox error={x.feedback} />}
    </fieldset>
  )
}

/** A thumb drawn in SVG (no emoji font is needed: the console ships no fonts). */
function Thumb({ down }: { down?: boolean }) {
  return (
    <svg
      class={`thumb${down ? ' thumb-down' : ''}`}
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
    >
      <path
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linejoin="round"
        d="M7 10v11H3V10h4Zm0 0 4-8c1.7 0 3 1.3 3 3v4h5.5a2 2 0 0 1 2 2.3l-1.4 8A2 2 0 0 1 18.1 21H7"
      />
    </svg>
  )
}
