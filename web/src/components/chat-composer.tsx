/**
 * Where a question is written: the strategy that answers it, the question (Enter asks, Shift+Enter
 * starts a new line), and Ask, Stop while an answer is written, or New conversation.
 */
import { useState } from 'preact/hooks'
import type { Strategy } from '../api/types'
import { Button } from './ui'

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
        {busy && <Button onClick={props.onStop}>Stop</Button>}
        {props.started && !busy && <Button onClick={props.onClear}>New conversation</Button>}
      </div>
    </form>
  )
}
