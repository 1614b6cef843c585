/** Rating an answer: good or bad, sent once chosen, with what the answer was and drew on. */
import type { Exchange } from '../lib/use-conversation'
import { Thumb } from './thumb'
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
