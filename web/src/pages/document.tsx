/**
 * The document viewer (`/console/bases/:id/documents/:doc?at=start-end`): the document's text as
 * the answers read it, opened at a cited passage (highlighted and scrolled to), with its PDF pages,
 * its sections and a download of the original file. The address holds the place, so a reload or a
 * link shared within the console opens the same passage.
 */
import { useLocation } from 'preact-iso'
import { downloadOriginal } from '../api/documents'
import { DocumentOutline } from '../components/document-outline'
import { DocumentText, pageAt } from '../components/document-text'
import { FileName } from '../components/file-name'
import { Button, ErrorBox, Loading, PageHeader } from '../components/ui'
import { useAction } from '../lib/action'
import { documentPath, parseAt } from '../lib/document-link'
import { saveFile } from '../lib/save-file'
import { useDocumentWindow } from '../lib/use-document-window'
import { visibleText } from '../lib/visible-text'
import '../styles/document.css'

/** The viewer of document `doc` of base `id`. */
export function DocumentPage({ id = '', doc = '' }: { id?: string; doc?: string }) {
  const { query, route } = useLocation()
  const at = parseAt(query.at)
  const view = useDocumentWindow(id, doc, at?.start ?? 0)
  const d = view.doc
  const download = useAction(async () => {
    const file = await downloadOriginal(id, doc, d?.filename.split('/').pop() || 'document')
    saveFile(file.blob, file.filename)
  })
  const citedPage = d && at ? pageAt(d.pages, at.start) : null
  const lastPage = d?.pages?.at(-1)?.number

  return (
    <>
      <PageHeader
        title={d ? visibleText(d.title || d.filename.split('/').pop() || d.filename) : 'Document'}
        lead={
          d && (
            <>
              <FileName name={d.filename} />
              {lastPage !== undefined && <span class="muted"> · {lastPage} pages</span>}
              {at && (
                <span class="doc-cited-where">
                  {' '}
                  · The cited passage{citedPage !== null ? ` is on page ${citedPage}` : ' is highlighted'}
                </span>
              )}
            </>
          )
        }
      >
        <a class="btn btn-plain" href={`/console/bases/${encodeURIComponent(id)}/chat`}>
          Back to chat
        </a>
        <Button variant="primary" busy={download.busy} disabled={!d} onClick={() => void download.run()}>
          Download original
        </Button>
      </PageHeader>
      <ErrorBox error={download.error} />
      {!d && view.loading && <Loading label="Loading the document…" />}
      {!d && !view.loading && <ErrorBox error={view.error} />}
      {d && (
        <div class="doc-viewer">
          <DocumentOutline
            pages={d.pages}
            sections={d.sections}
            current={citedPage}
            onGo={(offset) => {
              // Moving keeps the address shareable: the place is the start of what was picked.
              route(documentPath(id, doc, { start: offset, end: offset }), true)
            }}
          />
          <article class="doc-body" aria-label="Document text">
            {d.from > 0 && (
              <Button busy={view.more.busy} onClick={view.more.before}>
                Load earlier text
              </Button>
            )}
            <DocumentText
              text={d.text}
              from={d.from}
              pages={d.pages}
              sections={d.sections}
              mark={at && at.end > at.start ? at : null}
              focus={at?.start ?? 0}
              placeKey={`${query.at}|${view.seq}`}
            />
            {d.to < d.total && (
              <Button busy={view.more.busy} onClick={view.more.after}>
                Load more text
              </Button>
            )}
            <ErrorBox error={view.more.error ?? view.error} />
            <p class="muted doc-extent">
              Showing characters {d.from.toLocaleString()}–{d.to.toLocaleString()} of{' '}
              {d.total.toLocaleString()} of the text extracted from the file.
            </p>
          </article>
        </div>
      )}
    </>
  )
}
