/**
 * The conversations with a base kept in this browser (`conversation-store.ts`): the one this tab
 * has open comes back when the page does, each answered question is written down, and past ones
 * can be reopened, deleted or cleared.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import {
  loadConversations,
  newConversationId,
  type Owner,
  openConversationId,
  type SavedConversation,
  setOpenConversationId,
  storeConversations,
  toSaved,
} from './conversation-store'
import type { Exchange } from './use-conversation'

/** What the chat page does with its kept conversations. */
export interface KeptConversations {
  /** Most recent first. */
  list: SavedConversation[]
  /** The conversation on screen, once it has a question (a new one has none yet). */
  openId: string | null
  /** The exchanges to start with: the conversation this tab had open, or none. */
  initial: Exchange[]
  /** Writes down the conversation on screen (a running answer is written once it ends). */
  keep: (exchanges: Exchange[]) => void
  /** The exchanges of a kept conversation, which becomes the open one. */
  open: (id: string) => Exchange[]
  /** Starts a new conversation; the one on screen stays in the list. */
  startNew: () => void
  /** Deletes one; answers true when it was the one on screen. */
  remove: (id: string) => boolean
  /** Deletes every conversation with the base. */
  removeAll: () => void
}

const running = (x: Exchange) => x.status === 'waiting' || x.status === 'streaming' || x.status === 'retrying'

/** The exchanges as they would be written (ids and the time left out). */
function signature(exchanges: Exchange[]): string {
  return JSON.stringify(toSaved('', exchanges, 0).exchanges)
}

/** The exchanges of a kept conversation, as the page shows them. */
function exchangesOf(c: SavedConversation): Exchange[] {
  return c.exchanges.map((x, i) => ({ ...x, id: i + 1, error: x.error ? new Error(x.error) : undefined }))
}

/** The conversations of `owner` (a user's, with one base of one workspace). */
export function useKeptConversations(owner: Owner): KeptConversations {
  const [list, setList] = useState(() => loadConversations(owner))
  const [initial] = useState(() => {
    const c = list.find((x) => x.id === openConversationId(owner))
    return c ? exchangesOf(c) : []
  })
  const [openId, setOpenId] = useState(() => (initial.length ? openConversationId(owner) : null))
  const current = useRef(openId)
  // What is on screen, and what was last written or read back: the same exchanges are not written
  // twice, so merely opening a conversation does not make it the most recent.
  const latest = useRef<Exchange[]>(initial)
  const written = useRef(signature(initial))
  const mounted = useRef(true)

  const choose = (id: string | null) => {
    current.current = id
    setOpenConversationId(owner, id)
    setOpenId(id)
  }

  const write = (exchanges: Exchange[]) => {
    const sig = signature(exchanges)
    if (exchanges.length === 0 || (sig === written.current && current.current)) return
    written.current = sig
    const id = current.current ?? newConversationId()
    if (id !== current.current) choose(id)
    const others = loadConversations(owner).filter((c) => c.id !== id)
    const kept = storeConversations(owner, [toSaved(id, exchanges, Date.now()), ...others])
    if (mounted.current) setList(kept)
  }

  // Leaving the page mid-answer keeps what was written so far (as stopped).
  useEffect(
    () => () => {
      mounted.current = false
      write(latest.current)
    },
    [],
  )

  return {
    list,
    openId,
    initial,
    keep: (exchanges) => {
      latest.current = exchanges
      if (!exchanges.some(running)) write(exchanges)
    },
    open: (id) => {
      write(latest.current)
      const c = loadConversations(owner).find((x) => x.id === id)
      const exchanges = c ? exchangesOf(c) : []
      written.current = signature(exchanges)
      latest.current = exchanges
      choose(c ? id : null)
      return exchanges
    },
    startNew: () => {
      write(latest.current)
      choose(null)
    },
    remove: (id) => {
      setList(
        storeConversations(
          owner,
          loadConversations(owner).filter((c) => c.id !== id),
        ),
      )
      if (id !== current.current) return false
      choose(null)
      return true
    },
    removeAll: () => {
      setList(storeConversations(owner, []))
      choose(null)
    },
  }
}
