/**
 * Chat with a ready base: each answer streams in as the server writes it, cites its passages by
 * number, says honestly when the base does not hold the answer, and waits out a busy engine (503
 * with Retry-After) with a countdown instead of failing.
 */
import { useState } from 'preact/hooks'
import { servable } from '../api/answers'
import { getBase } from '../api/bases'
import type { Passage } from '../api/types'
import { ChatComposer } from '../components/chat-composer'
import { Transcript } from '../components/chat-transcript'
import { SourceDialog } from '../components/citations'
import { Async, Empty, PageHeader } from '../components/ui'
import { useConversation } from '../lib/use-conversation'
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

/** The transcript, the composer under it, and the passage a citation opened. */
function Conversation({ baseId }: { baseId: string }) {
  const chat = useConversation(baseId)
  const [open, setOpen] = useState<{ n: number; source: Passage } | null>(null)
  return (
    <div class="chat">
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
        onClear={chat.clear}
      />
      <SourceDialog source={open} baseId={baseId} onClose={() => setOpen(null)} />
    </div>
  )
}
