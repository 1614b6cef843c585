/**
 * Legal acceptance where it is required: a document shown in a dialog (title, version, its text in
 * a scrolling box) with "I accept" for admins, and `useLegalGate`, which runs an action and, while
 * the server answers 403 `legal_acceptance_required`, shows the named document, records the
 * acceptance and runs the action again (the next unaccepted document is asked the same way).
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client'
import { acceptLegal, getLegalDocument, type LegalDocument } from '../api/legal'
import { useAction } from '../lib/action'
import { Button, Dialog, ErrorBox } from './ui'

/** A document open in the dialog; `done` is told whether it was accepted. */
export interface OpenDocument {
  doc: LegalDocument
  /** Whether the reader may accept it here (an admin, the version not yet accepted). */
  canAccept: boolean
  done: (accepted: boolean) => void
}

/** The dialog of one document. */
export function LegalDialog({ open }: { open: OpenDocument | null }) {
  const accept = useAction(async () => {
    if (!open) return
    await acceptLegal(open.doc.document, open.doc.version)
    open.done(true)
  })
  const close = () => {
    accept.reset()
    open?.done(false)
  }
  return (
    <Dialog open={open !== null} title={open?.doc.title ?? 'Legal document'} onClose={close}>
      {open && (
        <div class="stack legal-dialog">
          <p class="hint">
            Version {open.doc.version}.{' '}
            {open.canAccept
              ? 'Accepting records it for the whole workspace: who accepted, when and the exact text.'
              : null}
          </p>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the text scrolls, and a keyboard can only scroll what takes focus. */}
          <div class="legal-text" tabIndex={0} role="document" aria-label={`${open.doc.title}, text`}>
            {blocks(open.doc.text).map((b, i) => (
              <p key={i}>{b}</p>
            ))}
          </div>
          <ErrorBox error={accept.error} />
          <div class="dialog-actions">
            <Button onClick={close}>{open.canAccept ? 'Cancel' : 'Close'}</Button>
            {open.canAccept && (
              <Button variant="primary" busy={accept.busy} onClick={() => accept.run()}>
                I accept
              </Button>
            )}
          </div>
        </div>
      )}
    </Dialog>
  )
}

/**
 * The text's paragraphs as it reads (Markdown, shown as written): blank lines part paragraphs, a
 * line wrapped in the source joins the one before, and a heading or list item starts a line.
 */
export function blocks(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .reduce((out, line) => {
          if (!out) return line
          return /^(#+ |[-*] |\d+[.)] )/.test(line) ? `${out}\n${line}` : `${out} ${line}`
        }, ''),
    )
    .filter((b) => b !== '')
}

/** The details of a 403 `legal_acceptance_required`. */
interface LegalRequired {
  document: string
  version: string
}

/** The document a refusal asks to accept, or null when the error is another one. */
export function legalRequired(e: unknown): LegalRequired | null {
  if (!(e instanceof ApiError) || e.code !== 'legal_acceptance_required') return null
  const d = e.details as Partial<LegalRequired> | undefined
  return d?.document ? { document: d.document, version: d.version ?? '' } : null
}

/** Runs actions past the legal gate; render `dialog` once in the page. `onAccepted` after each acceptance. */
export function useLegalGate(onAccepted?: () => void): {
  gated: <T>(work: () => Promise<T>) => Promise<T | null>
  dialog: JSX.Element
} {
  const [open, setOpen] = useState<OpenDocument | null>(null)
  /** Runs `work`; null when the reader declined a document it needed. */
  const gated = async <T,>(work: () => Promise<T>): Promise<T | null> => {
    const asked = new Set<string>()
    for (;;) {
      try {
        return await work()
      } catch (e) {
        const needed = legalRequired(e)
        // The same document asked twice after an acceptance: say the server's refusal, not loop.
        if (!needed || asked.has(`${needed.document}@${needed.version}`)) throw e
        asked.add(`${needed.document}@${needed.version}`)
        const doc = await getLegalDocument(needed.document)
        const accepted = await new Promise<boolean>((resolve) =>
          setOpen({ doc, canAccept: true, done: resolve }),
        )
        setOpen(null)
        if (!accepted) return null
        onAccepted?.()
      }
    }
  }
  return { gated, dialog: <LegalDialog open={open} /> }
}
