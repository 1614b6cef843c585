/**
 * A window of a document's text as the viewer shows it: a marker where each PDF page starts, a
 * heading where each section starts, and the cited passage in a `<mark>`. The text is only ever
 * given to Preact as text (never as HTML), so a document cannot put markup on the page.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import type { PageRange, SectionRange } from '../api/types'
import type { TextRange } from '../lib/document-link'

/** The page a text offset is on: the last page starting at or before it (null without pages). */
export function pageAt(pages: PageRange[] | null, offset: number): number | null {
  if (!pages || pages.length === 0) return null
  let found = pages[0]?.number ?? null
  for (const p of pages) {
    if (p.start > offset) break
    // An empty page shares its start with the next one: the offset belongs to the page with text.
    if (p.end > p.start || p.start < offset) found = p.number
  }
  return found
}

interface Props {
  text: string
  /** Where `text` starts in the whole document. */
  from: number
  pages: PageRange[] | null
  sections: SectionRange[]
  mark: TextRange | null
  /** The place to show: the mark when there is one, else this offset (a page picked). */
  focus: number
  /** Changes when the viewer moves to a new place: it is scrolled into view again. */
  placeKey: string
}

/** Where something starts inside the window, relative to `from`. */
interface Cut {
  at: number
  node: (key: string) => ComponentChildren
}

/** The text with its page markers, section headings and the cited passage. */
export function DocumentText(props: Props) {
  const { text, from, mark } = props
  const to = from + text.length
  const markRef = useRef<HTMLElement>(null)
  const anchorRef = useRef<HTMLElement>(null)

  useEffect(() => {
    // A passage starts some way down (its scroll margin): the lines before it, often its
    // page marker, say where it sits, and a long passage still shows its beginning.
    if (markRef.current) markRef.current.scrollIntoView({ block: 'start' })
    else anchorRef.current?.scrollIntoView({ block: 'start' })
  }, [props.placeKey])

  const inside = (at: number) => at >= from && at <= to
  const cuts: Cut[] = []
  for (const p of props.pages ?? []) {
    if (!inside(p.start)) continue
    cuts.push({
      at: p.start - from,
      node: (key) => (
        <div key={key} class="page-marker" id={`page-${p.number}`} data-page={p.number}>
          <span>Page {p.number}</span>
          {p.end === p.start && <span class="muted"> · no text</span>}
        </div>
      ),
    })
  }
  // A document of one untitled section is that section: a heading would only repeat its name.
  const titled = props.sections.filter((s) => s.title && props.sections.length > 1)
  // Where the text itself opens the section with its heading, those characters are the heading
  // (with the line breaks after it, which a block needs no more); elsewhere the title is added.
  const headings: { start: number; end: number; id: string }[] = []
  for (const s of titled) {
    const title = s.title ?? ''
    if (!inside(s.start)) continue
    const rel = s.start - from
    if (text.startsWith(title, rel)) {
      let end = rel + title.length
      while (text[end] === '\n') end++
      headings.push({ start: rel, end, id: s.id })
      continue
    }
    cuts.push({
      at: rel,
      node: (key) => (
        <h2 key={key} class="doc-section" id={`section-${s.id}`}>
          {title}
        </h2>
      ),
    })
  }
  cuts.sort((a, b) => a.at - b.at)

  // The points where the text is split: each cut, each heading's ends and both ends of the mark.
  const m = mark && mark.end > from && mark.start < to ? mark : null
  const points = new Set<number>([0, text.length, ...cuts.map((c) => c.at)])
  for (const h of headings) {
    points.add(h.start)
    points.add(h.end)
  }
  if (m) {
    points.add(Math.max(0, m.start - from))
    points.add(Math.min(text.length, m.end - from))
  }
  const focus = props.focus - from
  if (focus >= 0 && focus <= text.length) points.add(focus)
  const sorted = [...points].sort((a, b) => a - b)

  const out: ComponentChildren[] = []
  // The pieces of the heading being built, flushed as one <h2> when the text leaves it.
  let heading: { id: string; at: number; first: boolean; children: ComponentChildren[] } | null = null
  const flush = () => {
    if (!heading) return
    out.push(
      <h2
        key={`h-${heading.at}`}
        class="doc-section"
        id={heading.first ? `section-${heading.id}` : undefined}
      >
        {heading.children}
      </h2>,
    )
    heading = null
  }
  let c = 0
  let markPlaced = false
  for (let i = 0; i < sorted.length; i++) {
    const at = sorted[i] as number
    const next = sorted[i + 1]
    const h = headings.find((x) => at >= x.start && at < x.end)
    if (!h || h.id !== heading?.id || at === focus || cuts[c]?.at === at) flush()
    // Before the page marker or heading at the same place, so that scrolling to it shows them.
    if (at === focus) out.push(<span key="anchor" ref={anchorRef} class="doc-anchor" />)
    while (c < cuts.length && (cuts[c] as Cut).at === at) {
      out.push((cuts[c] as Cut).node(`cut-${c}`))
      c++
    }
    if (next === undefined || next === at) continue
    const piece = text.slice(at, next)
    const marked = m !== null && from + at >= m.start && from + next <= m.end
    // Only the first piece holds the ref: a page break inside the passage splits the mark.
    const node = marked ? (
      <mark key={`t-${at}`} class="cited" ref={markPlaced ? undefined : markRef} data-cited="">
        {piece}
      </mark>
    ) : (
      <span key={`t-${at}`}>{piece}</span>
    )
    if (marked) markPlaced = true
    if (h) {
      heading ??= { id: h.id, at, first: at === h.start, children: [] }
      heading.children.push(node)
    } else out.push(node)
  }
  flush()
  return <div class="doc-text">{out}</div>
}
