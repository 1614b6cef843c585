/**
 * Conversations kept in the browser, per user, workspace and base: the chat is still there after
 * leaving the page, and past conversations can be reopened. The server keeps none (a question and
 * its answer are asked again, not stored); what is kept here is what the person already saw.
 *
 * `localStorage` holds the list, so that it outlives the tab; the conversation a tab has open is
 * named in `sessionStorage`, so a new tab starts afresh with the list beside it. No token or key is
 * ever written here (the session lives in `session.ts`, in `sessionStorage` only). The list is
 * bounded: a few dozen conversations of a few dozen exchanges, long texts cut, and the oldest
 * conversation dropped when the browser's quota refuses a write.
 */
import type { ChatHead, Metrics, Strategy } from '../api/types'

/** An exchange as kept: what was shown, without what only a running answer has. */
export interface SavedExchange {
  question: string
  strategy: Strategy
  /** An answer that was being written when the page was left is kept as stopped. */
  status: 'done' | 'error' | 'stopped'
  head?: ChatHead
  text: string
  metrics?: Metrics
  error?: string
  rating?: 'up' | 'down'
}

/** One conversation with a base. */
export interface SavedConversation {
  id: string
  /** Its first question, shortened: how the list names it. */
  title: string
  updatedAt: number
  exchanges: SavedExchange[]
}

/** Whose conversations with which base. */
export interface Owner {
  workspaceId: string
  userId: string
  baseId: string
}

/** Conversations kept per base; the oldest goes first. */
export const MAX_CONVERSATIONS = 30
/** Exchanges kept per conversation; the earliest go first. */
export const MAX_EXCHANGES = 50
const MAX_TEXT = 20_000
const MAX_SNIPPET = 2_000
const TITLE = 80

const listKey = (o: Owner) => `engram.chats.v1:${o.workspaceId}:${o.userId}:${o.baseId}`
const openKey = (o: Owner) => `engram.chat.open.v1:${o.workspaceId}:${o.userId}:${o.baseId}`

/** The base's conversations, most recent first; none when storage is unavailable or unreadable. */
export function loadConversations(o: Owner): SavedConversation[] {
  try {
    const raw = JSON.parse(localStorage.getItem(listKey(o)) ?? '[]') as unknown
    return Array.isArray(raw)
      ? (raw as SavedConversation[]).filter((c) => c && Array.isArray(c.exchanges))
      : []
  } catch {
    return []
  }
}

/**
 * Writes the list, most recent first and bounded; when the browser refuses (its quota is full),
 * drops the oldest conversation and tries again. Answers the list as kept.
 */
export function storeConversations(o: Owner, list: SavedConversation[]): SavedConversation[] {
  let kept = [...list].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, MAX_CONVERSATIONS)
  for (;;) {
    try {
      if (kept.length === 0) localStorage.removeItem(listKey(o))
      else localStorage.setItem(listKey(o), JSON.stringify(kept))
      return kept
    } catch {
      // Storage refused (quota, or turned off): keep fewer, or give up and keep them in memory only.
      if (kept.length <= 1) return kept
      kept = kept.slice(0, -1)
    }
  }
}

/** The conversation this tab has open with the base, if any. */
export function openConversationId(o: Owner): string | null {
  try {
    return sessionStorage.getItem(openKey(o))
  } catch {
    return null
  }
}

/** Remembers (or, with null, forgets) which conversation this tab has open. */
export function setOpenConversationId(o: Owner, id: string | null): void {
  try {
    if (id) sessionStorage.setItem(openKey(o), id)
    else sessionStorage.removeItem(openKey(o))
  } catch {
    // Storage off: the conversation then lasts as long as the page.
  }
}

/** A conversation as kept, from what the page shows: long texts cut, running answers stopped. */
export function toSaved(
  id: string,
  exchanges: {
    question: string
    strategy: Strategy
    status: string
    head?: ChatHead
    text: string
    metrics?: Metrics
    error?: Error
    rating?: 'up' | 'down'
  }[],
  now: number,
): SavedConversation {
  const kept = exchanges.slice(-MAX_EXCHANGES).map(
    (x): SavedExchange => ({
      question: x.question,
      strategy: x.strategy,
      status: x.status === 'done' || x.status === 'error' ? x.status : 'stopped',
      head: x.head && {
        ...x.head,
        sources: x.head.sources.map((s) => ({ ...s, snippet: s.snippet.slice(0, MAX_SNIPPET) })),
      },
      text: x.text.slice(0, MAX_TEXT),
      metrics: x.metrics,
      error: x.error?.message,
      rating: x.rating,
    }),
  )
  const first = exchanges[0]?.question.replace(/\s+/g, ' ').trim() ?? ''
  return {
    id,
    title: first.length > TITLE ? `${first.slice(0, TITLE - 1)}…` : first,
    updatedAt: now,
    exchanges: kept,
  }
}

/** A new conversation id (not secret: it names a list entry in this browser). */
export function newConversationId(): string {
  return `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
}
