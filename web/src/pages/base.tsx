/**
 * `/console/bases/:id`: one document base. Its status and counters, links to chat with it and to
 * compare strategies on it, then two tabs: its documents (the upload of files and folders,
 * onboarding, the documents) and its sources (`?tab=sources`: folders elsewhere kept in step, run
 * history, imports). Every action here is open to every signed-in user of the workspace (the routes
 * need a session, not an admin), so nothing is hidden by role; only adding a connection is an
 * admin's, and the sources tab says so.
 */
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { documentsPage, getBase } from '../api/bases'
import type { Corpus } from '../api/types'
import { BaseSettings } from '../components/base-settings'
import { LastSynced, StatusBadge } from '../components/base-status'
import { DeleteBase } from '../components/delete-base'
import { DocumentsTable } from '../components/documents-table'
import { OnboardingPanel } from '../components/onboarding-panel'
import { SourcesPanel } from '../components/sources-panel'
import { Tabs } from '../components/tabs'
import { Async, Button, PageHeader } from '../components/ui'
import { UploadDropZone } from '../components/upload-drop-zone'
import { UploadList } from '../components/upload-list'
import { statusWords } from '../lib/base-state'
import { useCursorPages } from '../lib/use-cursor-pages'
import { useLoad } from '../lib/use-load'
import { useUploads } from '../lib/use-uploads'
import '../styles/bases.css'

/** The page of base `id`. */
export function Base({ id = '' }: { id?: string }) {
  const base = useLoad((signal) => getBase(id, signal), [id])
  return (
    <>
      <p class="base-back">
        <a href="/console/bases">← All bases</a>
      </p>
      {base.data === undefined && !base.loading && <PageHeader title="Document base" />}
      <Async load={base}>{(b) => <BaseView base={b} reloadBase={base.reload} />}</Async>
    </>
  )
}

const TABS = [
  { id: 'documents', label: 'Documents' },
  { id: 'sources', label: 'Sources' },
]

function BaseView({ base, reloadBase }: { base: Corpus; reloadBase: () => void }) {
  const { route, path, query } = useLocation()
  const tab = query.tab === 'sources' ? 'sources' : 'documents'
  // The tab is in the address (replacing it, not adding to history) so a reload or a link keeps it.
  const pick = (id: string) => route(id === 'documents' ? path : `${path}?tab=${id}`, true)
  const docs = useCursorPages(
    (cursor, limit, signal) => documentsPage(base.id, cursor, limit, signal),
    [base.id],
  )
  const [deleting, setDeleting] = useState(false)
  const refresh = () => {
    reloadBase()
    docs.reload()
  }
  const uploads = useUploads(base.id, refresh)
  return (
    <>
      <PageHeader title={base.name} lead={<BaseSummary base={base} />}>
        <a class="btn btn-primary" href={`/console/bases/${base.id}/chat`}>
          Chat
        </a>
        <a class="btn btn-plain" href={`/console/bases/${base.id}/compare`}>
          Compare
        </a>
        <Button variant="danger" onClick={() => setDeleting(true)}>
          Delete base
        </Button>
      </PageHeader>
      <Counters base={base} />

      <Tabs label="Parts of the base" tabs={TABS} selected={tab} onSelect={pick}>
        {tab === 'sources' ? (
          <SourcesPanel base={base} onChanged={refresh} />
        ) : (
          <>
            <section class="base-part" aria-labelledby="upload-heading">
              <h2 id="upload-heading">Upload documents</h2>
              <UploadDropZone onFiles={uploads.add} />
              <UploadList uploads={uploads} />
            </section>

            <section class="base-part" aria-labelledby="onboarding-heading">
              <h2 id="onboarding-heading">Onboarding</h2>
              <OnboardingPanel base={base} onCounters={reloadBase} onFinished={refresh} />
            </section>

            <section class="base-part" aria-labelledby="documents-heading">
              <h2 id="documents-heading">Documents</h2>
              <DocumentsTable base={base} docs={docs} onDeleted={refresh} />
            </section>

            <section class="base-part" aria-labelledby="settings-heading">
              <h2 id="settings-heading">Settings</h2>
              <BaseSettings base={base} onChanged={reloadBase} />
            </section>
          </>
        )}
      </Tabs>

      <DeleteBase
        base={deleting ? base : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => route('/console/bases')}
      />
    </>
  )
}

/** The line under the name: status, what it means for chatting, and the documents still waiting. */
function BaseSummary({ base }: { base: Corpus }) {
  return (
    <span class="base-summary">
      <StatusBadge status={base.status} /> <span>{statusWords(base)}</span>
    </span>
  )
}

/**
 * The base's document counters. "Onboarding" shows only while a run holds documents (documents
 * waiting for a run are "Waiting"); "Last synced" is a source's sync or an import, never an upload.
 */
function Counters({ base }: { base: Corpus }) {
  return (
    <dl class="base-counters">
      <div>
        <dt>Documents</dt>
        <dd>{base.n_documents}</dd>
      </div>
      <div>
        <dt>Ready</dt>
        <dd>{base.documents_ready}</dd>
      </div>
      <div>
        <dt>Waiting</dt>
        <dd>{base.documents_pending}</dd>
      </div>
      {base.documents_onboarding > 0 && (
        <div>
          <dt>Onboarding</dt>
          <dd>{base.documents_onboarding}</dd>
        </div>
      )}
      <div>
        <dt>Failed</dt>
        <dd>{base.documents_failed}</dd>
      </div>
      <div>
        <dt>Last synced</dt>
        <dd>
          <LastSynced iso={base.last_synced_at} />
        </dd>
      </div>
    </dl>
  )
}
