/**
 * The conversation so far: each question, and its answer as it arrives (a busy engine's countdown,
 * "not in this base", a fallback note, the text with its numbered citations, the sources, the
 * figures and the rating), the newest brought into view as it is asked and as its answer grows.
 */
import type { Ref } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import { fmtMs } from '../lib/format'
import type { Exchange } from '../lib/use-conversation'
import { Feedback } from './answer-feedback'
import { CitedText, SourceList } from './citations'
import { RetryCountdown } from './retry-countdown'
import { Empty, ErrorBox } from './ui'

/** What an exchange's controls do. */
interface ExchangeHandlers {
  onCite: (x: Exchange, index: number) => void
  onRate: (x: Exchange, rating: 'up' | 'down') => void
  onRetry: (x: Exchange) => void
  onCancelRetry: (x: Exchange) => void
}

// Room left between an answer and the edges of what can be seen.
const MARGIN = 16

/**
 * Brings the newest exchange into view, down to the end of its answer, but never so far that its
 * question leaves the top. What can be seen ends at the question box where that box stays at the
 * bottom of the window (wide screens), so an answer is never left under it. `asked` is for a new
 * question (or a conversation opened); while an answer grows, the page follows only while the
 * exchange is on screen, so a reader who scrolled back up is not pulled down. The jump is instant:
 * a smooth scroll still under way would make an answer that ends quickly look off screen.
 */
function reveal(article: HTMLElement, asked: boolean) {
  const box = article.getBoundingClientRect()
  const composer = article.closest('.chat')?.querySelector('.composer')?.getBoundingClientRect()
  const visibleBottom = Math.min(window.innerHeight, composer && composer.top > 0 ? composer.top : Infinity)
  if (!asked && (box.top >= visibleBottom || box.bottom <= 0)) return
  const by =
    asked && box.top < MARGIN
      ? box.top - MARGIN
      : Math.max(0, Math.min(box.bottom + MARGIN - visibleBottom, box.top - MARGIN))
  if (Math.abs(by) >= 1) window.scrollBy(0, by)
}

/** The exchanges, or what to do when there are none yet. */
export function Transcript(props: { exchanges: Exchange[] } & ExchangeHandlers) {
  const { exchanges } = props
  const lastRef = useRef<HTMLElement>(null)
  const last = exchanges[exchanges.length - 1]
  // A new question (or a conversation opened): its exchange comes into view.
  useEffect(() => {
    if (lastRef.current) reveal(lastRef.current, true)
  }, [last?.id])
  // Its answer grows and ends: the page follows it.
  useEffect(() => {
    if (lastRef.current) reveal(lastRef.current, false)
  }, [last?.text.length, last?.status, last?.head])
  return (
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
            articleRef={x === last ? lastRef : undefined}
            onCite={(i) => props.onCite(x, i)}
            onRate={(r) => props.onRate(x, r)}
            onRetry={() => props.onRetry(x)}
            onCancelRetry={() => props.onCancelRetry(x)}
          />
        ))
      )}
    </section>
  )
}

/** One exchange: the question, and its answer as it arrives, with its sources and figures. */
function ExchangeView(props: {
  x: Exchange
  articleRef?: Ref<HTMLElement>
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
    <article class="exchange" aria-label={`Question: ${x.question}`} ref={props.articleRef}>
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
