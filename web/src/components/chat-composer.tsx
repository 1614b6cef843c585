/**
 * Where a question is written: the strategy that answers it, the question (Enter asks, Shift+Enter
 * starts a new line), and Ask, Stop while an answer is written, or New conversation.
 */
import { useState } from 'preact/hooks'
import type { Strategy } from '../api/types'
import { Button } from './ui'

/** The two strategies, each with what it does in one line (the compare page measures them). */
const STRATEGIES: { value: Strategy; label: string; hint: string }[] = [
  {
    value: 'cart',
    label: 'Cartridges (cart)',
    hint: "Reads the base's compiled cartridges, held in memory: every section's sentences, quickly.",
  },
  {
    value: 'rag',
    label: 'Retrieval (rag)',
    hint: "Searches the base's full-text index for the passages nearest the question, then answers from them.",
  },
]

/** The composer; `onAsk` answers whether the question was taken (it is then cleared). */
export function ChatComposer(props: {
  busy: boolean
  /** The conversation has exchanges to clear. */
  started: boolean
  onAsk: (question: string, strategy: Strategy) => boolean
  onStop: () => void
  onClear: () => void
}) {
  const { busy } = props
  const [question, setQuestion] = useState('')
  const [strategy, setStrategy] = useState<Strategy>('cart')

  function ask(ev: Event) {
    ev.preventDefault()
    const q = question.trim()
    if (!q || busy) return
    if (props.onAsk(q, strategy)) setQuestion('')
  }

  return (
    <form class="composer card" onSubmit={ask}>
      <fieldset class="strategy">
        <legend>Strategy</legend>
        {STRATEGIES.map((o) => (
          <div class="strategy-option" key={o.value}>
            <label class="check">
              <input
                type="radio"
                name="strategy"
                value={o.value}
                checked={strategy === o.value}
                aria-describedby={`strategy-${o.value}-hint`}
                onChange={() => setStrategy(o.value)}
              />
              {o.label}
            </label>
            <p class="hint" id={`strategy-${o.value}-hint`}>
              {o.hint}
            </p>
          </div>
        ))}
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
        {busy && <Button onClick={props.onStop}>Stop</Button>}
        {props.started && !busy && <Button onClick={props.onClear}>New conversation</Button>}
      </div>
    </form>
  )
}
