/**
 * Numbered citations: an answer's `[n]` markers become buttons that open the passage `n` of its
 * sources, with the document it comes from, in a dialog.
 */
import type { Passage } from '../api/types'
import { documentPath } from '../lib/document-link'
import { visibleText } from '../lib/visible-text'
import { FileName } from './file-name'
import { Dialog } from './ui'

/** The answer's text with each `[n]` that names one of `sources` as a button opening it. */
export function CitedText(props: { text: string; sources: Passage[]; onCite: (index: number) => void }) {
  const parts = props.text.split(/(\[\d{1,2}\])/)
  return (
    <>
      {parts.map((part, i) => {
        const m = /^\[(\d{1,2})\]$/.exec(part)
        const n = m ? Number(m[1]) : 0
        const source = n >= 1 ? props.sources[n - 1] : undefined
        if (!source) return part
        return (
          <button
            key={i}
            type="button"
            class="cite"
            aria-label={`Source ${n}: ${visibleText(source.filename)}`}
            onClick={() => props.onCite(n - 1)}
          >
            [{n}]
          </button>
        )
      })}
    </>
  )
}

/** The list of an answer's sources, numbered as the answer cites them. */
export function SourceList(props: { sources: Passage[]; onOpen: (index: number) => void; label?: string }) {
  if (props.sources.length === 0) return null
  return (
    <ol class="sources" aria-label={props.label ?? 'Sources'}>
      {props.sources.map((s, i) => (
        <li key={s.id}>
          <button type="button" class="source-link" onClick={() => props.onOpen(i)}>
            <span class="source-n">[{i + 1}]</span> <bdi>{visibleText(s.title || s.filename)}</bdi>
          </button>
          {s.title && s.title !== s.filename && (
            <>
              {' '}
              <FileName name={s.filename} class="muted source-file" />
            </>
          )}
        </li>
      ))}
    </ol>
  )
}

/**
 * The cited passage in a dialog, as a reader needs it: the document, the page and section it is
 * on, the passage itself, and a way to open the document there. Internal ids and match scores
 * are left out: they say nothing to a reader.
 */
export function SourceDialog(props: {
  source: { n: number; source: Passage } | null
  baseId: string
  onClose: () => void
}) {
  const s = props.source?.source
  const at = s && s.start !== null && s.end !== null ? { start: s.start, end: s.end } : null
  const href = s ? documentPath(props.baseId, s.document_id, at) : ''
  return (
    <Dialog
      open={Boolean(s)}
      title={s ? `Source ${props.source?.n}: ${visibleText(s.title || s.filename)}` : 'Source'}
      onClose={props.onClose}
    >
      {s && (
        <div class="stack source-panel">
          <dl class="facts">
            <dt>Document</dt>
            <dd>
              <a href={href}>
                <FileName name={s.filename} class="source-file" />
              </a>
            </dd>
            {s.page !== null && (
              <>
                <dt>Page</dt>
                <dd>Page {s.page}</dd>
              </>
            )}
            {s.section_title && (
              <>
                <dt>Section</dt>
                <dd>
                  <bdi>{visibleText(s.section_title)}</bdi>
                </dd>
              </>
            )}
          </dl>
          <blockquote class="passage" aria-label="Passage">
            {s.snippet || <span class="muted">This passage has no text to show.</span>}
          </blockquote>
          <div class="dialog-actions">
            <button type="button" class="btn btn-plain" onClick={props.onClose}>
              Close
            </button>
            {/* A link, not a button: it can be opened in a new tab and its address shared. */}
            <a class="btn btn-primary" href={href}>
              Open in document
            </a>
          </div>
        </div>
      )}
    </Dialog>
  )
}
