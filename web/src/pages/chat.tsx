/**
 * Chat with a ready base: each answer streams in as the server writes it, cites its passages by
 * number, says honestly when the base does not hold the answer, and waits out a busy engine (503
 * with Retry-After) with a countdown instead of failing. Conversations are kept in this browser:
 * the open one comes back with the page, and past ones can be reopened.
 */
import { useEffect, useState } from 'preact/hooks'
import { servable } from '../api/answers'
import { getBase } from '../api/bases'
import { me } from '../api/session'
import type { Passage } from '../api/types'
import { ChatComposer } from '../components/chat-composer'
import { ChatHistory } from '../components/chat-history'
import { Transcript } from '../components/chat-transcript'
import { SourceDialog } from '../components/citations'
import { Async, Empty, PageHeader } from '../components/ui'
import { useConversation } from '../lib/use-conversation'
import { useKeptConversations } from '../lib/use-kept-conversations'
import { useLoad } from '../lib/use-load'
import '../styles/chat.css'

/** The chat page of a base (`/console/bases/:id/chat`). */
export function Chat({ id = '' }: { id?: string }) {
  const base = useLoad((signal) => getBase(id, signal), [id])
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
            // Keyed by base: another base's chat starts from its own kept conversation.
            <Conversation key={id} baseId={id} />
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

/**
 * Past conversations, the transcript, the composer under it, and the passage a citation opened.
 * The conversation is kept in this browser as it goes, so it is still there after leaving the page.
 */
function Conversation({ baseId }: { baseId: string }) {
  const user = me.value
  const kept = useKeptConversations({
    workspaceId: user?.workspace_id ?? '',
    userId: user?.id ?? '',
    baseId,
  })
  const chat = useConversation(baseId, kept.initial)
  const [open, setOpen] = useState<{ n: number; source: Passage } | null>(null)
  useEffect(() => kept.keep(chat.exchanges), [chat.exchanges])
  return (
    <div class="chat">
      <ChatHistory
        list={kept.list}
        openId={kept.openId}
        onOpen={(id) => chat.replace(kept.open(id))}
        onDelete={(id) => kept.remove(id) && chat.clear()}
        onClearAll={() => {
          kept.removeAll()
          chat.clear()
        }}
      />
      <Transcript
        exchanges={chat.exchanges}
        onCite={(x, i) => {
          const s = x.head?.sources[i]
          if (s) setOpen({ n: i + 1, source: s })
        }}
        onRate={chat.rate}
        onRetry={chat.retry}
        onCancelRetry={chat.cancelRetry}
      />
      <ChatComposer
        busy={chat.busy}
        started={chat.exchanges.length > 0}
        onAsk={chat.ask}
        onStop={chat.stop}
        onClear={() => {
          kept.startNew()
          chat.clear()
        }}
      />
      <SourceDialog source={open} baseId={baseId} onClose={() => setOpen(null)} />
    </div>
  )
}
