/**
 * `/console/bases`: the workspace's document bases with their status and document counters; create
 * one (then upload to it on its page) or delete one after a confirmation naming it. Every signed-in
 * user may do both: the routes need a session of the workspace, not an admin (`auth: 'bearer'`; the
 * `ingest` scope they name limits API keys only).
 */
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { createBase, listBases, startOnboarding } from '../api/bases'
import type { Corpus } from '../api/types'
import { LastSynced, StatusBadge } from '../components/base-status'
import { DeleteBase } from '../components/delete-base'
import { Async, Button, Empty, ErrorBox, Field, PageHeader } from '../components/ui'
import { useAction } from '../lib/action'
import { documents, onboardsByItself } from '../lib/base-state'
import { useLoad } from '../lib/use-load'
import '../styles/bases.css'

/** The list of bases. */
export function Bases(_props: { id?: string }) {
  const bases = useLoad((signal) => listBases(signal), [])
  const [doomed, setDoomed] = useState<Corpus | null>(null)
  return (
    <>
      <PageHeader
        title="Document bases"
        lead="A base holds the documents questions are answered from: upload files, onboard them, then chat."
      />
      <CreateBase first={bases.data?.length === 0} />
      <h2>Your bases</h2>
      <Async load={bases}>
        {(items) =>
          items.length === 0 ? (
            <Empty title="No document bases yet">
              <p>Create your first base above: give it a name, then drop your files on its page.</p>
            </Empty>
          ) : (
            <BaseTable items={items} onDelete={setDoomed} onStarted={bases.reload} />
          )
        }
      </Async>
      <DeleteBase
        base={doomed}
        onClose={() => setDoomed(null)}
        onDeleted={() => {
          setDoomed(null)
          bases.reload()
        }}
      />
    </>
  )
}

/** The form that creates a base and opens it. */
function CreateBase({ first }: { first: boolean }) {
  const { route } = useLocation()
  const create = useAction(
    async (e: Event) => {
      e.preventDefault()
      const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '')
      const base = await createBase(name)
      route(`/console/bases/${base.id}`)
    },
    { leaves: true },
  )
  return (
    <form class="card stack create-base" onSubmit={create.run} aria-label="Create a document base">
      <div class="row">
        <div class="create-base-name">
          <Field
            label={first ? 'Name your first base' : 'New base name'}
            name="name"
            required
            maxLength={200}
            placeholder="e.g. Product handbook"
            autocomplete="off"
          />
        </div>
        <Button type="submit" variant="primary" busy={create.busy}>
          Create base
        </Button>
      </div>
      <ErrorBox error={create.error} />
    </form>
  )
}

/**
 * Bases as a table: name, status, counters, last sync; a delete button per base. Documents waiting
 * for a run say whether onboarding starts by itself, or offer to start it.
 */
function BaseTable(props: { items: Corpus[]; onDelete: (b: Corpus) => void; onStarted: () => void }) {
  const { items, onDelete } = props
  const start = useAction(async (b: Corpus) => {
    await startOnboarding(b.id, false)
    props.onStarted()
  })
  return (
    <div class="table-wrap">
      <ErrorBox error={start.error} />
      <table class="bases-table">
        <caption class="visually-hidden">Document bases, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Documents
            </th>
            <th scope="col" class="num">
              Ready
            </th>
            <th scope="col">Waiting</th>
            <th scope="col" class="num">
              Failed
            </th>
            <th scope="col">Last synced</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((b) => (
            <tr key={b.id}>
              <th scope="row">
                <a href={`/console/bases/${b.id}`}>{b.name}</a>
              </th>
              <td>
                <StatusBadge status={b.status} />
                {b.documents_onboarding > 0 && (
                  <span class="muted"> {documents(b.documents_onboarding)}</span>
                )}
              </td>
              <td class="num">{b.n_documents}</td>
              <td class="num">{b.documents_ready}</td>
              <td class="cell-waiting">
                {b.documents_pending === 0 ? (
                  '0'
                ) : onboardsByItself(b) ? (
                  `${b.documents_pending} waiting — onboarding starts by itself`
                ) : (
                  <>
                    {b.documents_pending} waiting{' '}
                    <button
                      type="button"
                      class="btn btn-primary btn-small"
                      aria-label={`Start onboarding ${b.name}`}
                      aria-busy={start.busy && start.args?.[0].id === b.id}
                      disabled={start.busy || b.status === 'training'}
                      onClick={() => start.run(b)}
                    >
                      Start onboarding
                    </button>
                  </>
                )}
              </td>
              <td class="num">{b.documents_failed}</td>
              <td>
                <LastSynced iso={b.last_synced_at} />
              </td>
              <td class="cell-actions">
                <button
                  type="button"
                  class="btn btn-plain btn-small"
                  aria-label={`Delete ${b.name}`}
                  onClick={() => onDelete(b)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
