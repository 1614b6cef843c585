/**
 * The part of a document's text the viewer holds: one contiguous window, loaded around the cited
 * passage and grown a chunk at a time above or below, so a 600-page manual is never read whole.
 * Pages and sections come with every answer as ranges of the whole text.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { getDocumentText } from '../api/documents'
import type { DocumentText, PageRange, SectionRange } from '../api/types'
import { useAction } from './action'

/** Code units read at a time: some twenty pages of prose, small enough to render at once. */
export const CHUNK = 20_000

/** The loaded window `text` = the document's text from `from` to `to`. */
export interface DocWindow {
  filename: string
  title: string | null
  total: number
  from: number
  to: number
  text: string
  pages: PageRange[] | null
  sections: SectionRange[]
}

/** The window's state and the ways to grow it or move it. */
export interface DocumentWindow {
  doc?: DocWindow
  error?: Error
  loading: boolean
  /** Counts the windows read afresh (not grown): the viewer scrolls to its place again on each. */
  seq: number
  more: { busy: boolean; error: Error | null; before: () => void; after: () => void }
}

function windowOf(t: DocumentText): DocWindow {
  return {
    filename: t.filename,
    title: t.title,
    total: t.text_chars,
    from: t.offset,
    to: t.offset + t.text.length,
    text: t.text,
    pages: t.pages,
    sections: t.sections,
  }
}

/**
 * Reads from `offset` to `end`: the server may stop a window short of the limit (never between
 * the halves of a surrogate pair), so it is asked again from `next_offset` until `end`.
 */
async function readRange(baseId: string, docId: string, offset: number, end: number, signal?: AbortSignal) {
  const first = await getDocumentText(baseId, docId, { offset, limit: Math.max(1, end - offset) }, signal)
  let text = first.text
  let next = first.next_offset
  while (next !== null && next < end) {
    const more = await getDocumentText(baseId, docId, { offset: next, limit: end - next }, signal)
    if (more.text.length === 0) break
    text += more.text
    next = more.next_offset
  }
  return { ...first, text }
}

/** The window of `docId` in `baseId`, first around `around` (the cited passage's start). */
export function useDocumentWindow(baseId: string, docId: string, around: number): DocumentWindow {
  const [state, setState] = useState<{ doc?: DocWindow; error?: Error; loading: boolean; seq: number }>({
    loading: true,
    seq: 0,
  })
  const held = useRef<{ docId: string; doc?: DocWindow }>({ docId })
  held.current = { docId, doc: held.current.docId === docId ? state.doc : undefined }
  useEffect(() => {
    // A place already in the window (a page picked in the outline) is only scrolled to.
    const d = held.current.doc
    if (d && around >= d.from && around < d.to) return
    const abort = new AbortController()
    setState((s) => ({ ...s, loading: true }))
    const offset = Math.max(0, around - CHUNK / 2)
    readRange(baseId, docId, offset, offset + CHUNK, abort.signal).then(
      (t) => !abort.signal.aborted && setState((s) => ({ doc: windowOf(t), loading: false, seq: s.seq + 1 })),
      (error: Error) => !abort.signal.aborted && setState((s) => ({ ...s, error, loading: false })),
    )
    return () => abort.abort()
  }, [baseId, docId, around])

  const grow = useAction(async (where: 'before' | 'after') => {
    const d = state.doc
    if (!d) return
    if (where === 'before') {
      const offset = Math.max(0, d.from - CHUNK)
      const t = await readRange(baseId, docId, offset, d.from)
      // Only the part that meets the window is kept, whatever the server answered.
      const text = t.text.slice(0, d.from - t.offset)
      setState((s) => ({ ...s, doc: s.doc && { ...s.doc, from: t.offset, text: text + s.doc.text } }))
    } else {
      const t = await readRange(baseId, docId, d.to, Math.min(d.total, d.to + CHUNK))
      setState((s) => ({
        ...s,
        doc: s.doc && { ...s.doc, to: t.offset + t.text.length, text: s.doc.text + t.text },
      }))
    }
  })

  return {
    ...state,
    more: {
      busy: grow.busy,
      error: grow.error,
      before: () => void grow.run('before'),
      after: () => void grow.run('after'),
    },
  }
}
