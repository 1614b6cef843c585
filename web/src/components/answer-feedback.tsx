/** Rating an answer: good or bad, sent once chosen, with what the answer was and drew on. */
import type { Exchange } from '../lib/use-conversation'
import { ErrorBox } from './ui'

/** Good or bad: the rating buttons of an answer, and whether the rating was recorded. */
export function Feedback({ x, onRate }: { x: Exchange; onRate: (r: 'up' | 'down') => void }) {
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
