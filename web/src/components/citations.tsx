/**
 * Numbered citations: an answer's `[n]` markers become buttons that open the passage `n` of its
 * sources, with the document it comes from, in a dialog.
 */
import type { Passage } from '../api/types'
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

/** The cited passage and its document, in a dialog; `baseId` links to the base's documents. */
export function SourceDialog(props: {
  source: { n: number; source: Passage } | null
  baseId: string
  onClose: () => void
}) {
  const s = props.source?.source
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
              <a
                href={`/console/bases/${encodeURIComponent(props.baseId)}?document=${encodeURIComponent(s.document_id)}`}
              >
                <FileName name={s.filename} class="source-file" />
              </a>
            </dd>
            <dt>Passage</dt>
            <dd>
              <code>{s.id}</code>
            </dd>
            <dt>Match score</dt>
            <dd>{s.score.toFixed(2)}</dd>
          </dl>
          <blockquote class="passage" aria-label="Passage">
            {s.snippet || <span class="muted">This passage has no text to show.</span>}
          </blockquote>
          <div class="dialog-actions">
            <button type="button" class="btn btn-primary" onClick={props.onClose}>
              Close
            </button>
          </div>
        </div>
      )}
    </Dialog>
  )
}
