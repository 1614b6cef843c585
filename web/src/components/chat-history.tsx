/**
 * Past conversations with a base, kept in this browser: each named by its first question, with
 * when it was last asked and how many questions it holds; open one, delete one, or clear them all.
 * The conversation on screen is not a past one: it is neither counted nor listed (it is, once a new
 * one is started or another is opened).
 */
import { useState } from 'preact/hooks'
import type { SavedConversation } from '../lib/conversation-store'
import { Button, Confirm, Time } from './ui'

/** The list, folded away until asked for (it is what a returning visitor looks for, not the chat). */
export function ChatHistory(props: {
  list: SavedConversation[]
  openId: string | null
  onOpen: (id: string) => void
  onDelete: (id: string) => void
  onClearAll: () => void
}) {
  const [clearing, setClearing] = useState(false)
  const list = props.list.filter((c) => c.id !== props.openId)
  const onScreen = props.openId !== null && list.length < props.list.length
  return (
    <details class="card chat-history">
      <summary>
        Past conversations <span class="badge">{list.length}</span>
      </summary>
      {list.length === 0 ? (
        <p class="muted">
          {onScreen
            ? 'None yet. The conversation on screen is kept in this browser, for you and this base; it is listed here once you start a new one.'
            : 'None yet. Each conversation is kept in this browser, for you and this base, once it has a question.'}
        </p>
      ) : (
        <>
          <ul class="chat-history-list" aria-label="Past conversations">
            {list.map((c) => (
              <li key={c.id}>
                <button type="button" class="link-button" onClick={() => props.onOpen(c.id)}>
                  {c.title || 'Untitled conversation'}
                </button>
                <span class="muted chat-history-meta">
                  {c.exchanges.length} {c.exchanges.length === 1 ? 'question' : 'questions'} ·{' '}
                  <Time iso={new Date(c.updatedAt).toISOString()} />
                </span>
                <button
                  type="button"
                  class="btn btn-plain btn-small"
                  aria-label={`Delete the conversation “${c.title}”`}
                  onClick={() => props.onDelete(c.id)}
                >
                  Delete
                </button>
              </li>
            ))}
          </ul>
          <p class="hint">
            Kept in this browser only (not on the server), for you and this base; the latest{' '}
            {list.length > 1 ? 'ones' : 'one'} first.{' '}
            <Button onClick={() => setClearing(true)}>Clear all</Button>
          </p>
        </>
      )}
      <Confirm
        open={clearing}
        title="Clear every past conversation with this base?"
        confirmLabel="Clear all"
        onConfirm={() => {
          setClearing(false)
          props.onClearAll()
        }}
        onCancel={() => setClearing(false)}
      >
        <p>
          The {list.length} past {list.length === 1 ? 'conversation' : 'conversations'}
          {onScreen ? ' and the one on screen' : ''} kept in this browser go. The documents and the answers'
          sources are not touched.
        </p>
      </Confirm>
    </details>
  )
}
