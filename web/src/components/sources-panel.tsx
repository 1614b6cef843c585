/**
 * The base page's Sources tab: the base's sources (folders elsewhere it is kept in step with), the
 * form that adds one, the run history with its counters, and the import dialog. While a sync lists
 * a source or its documents are still processing, the list is asked again every half second; when
 * a run ends the history and the base's counters and documents are reloaded.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { me } from '../api/session'
import { latestRuns, listConnections, listSources } from '../api/sources'
import type { Corpus, Source } from '../api/types'
import { useLoad } from '../lib/use-load'
import { usePoll } from '../lib/use-poll'
import { AddSource, type Check } from './add-source'
import { ImportDialog } from './import-dialog'
import { DeleteSource, ScheduleDialog } from './source-dialogs'
import { SourceItem } from './source-item'
import { SyncHistory } from './sync-history'
import { Async, Button, Empty, Note } from './ui'
import '../styles/sources.css'

/** A source is busy while a sync lists it or its last run's documents are still processing. */
const busy = (s: Source) => s.current_run !== null || s.last_run?.status === 'running'

/** What the list says of a source's runs: any change to it is a run that started, moved or ended. */
const runsOf = (s: Source) =>
  [s.id, s.current_run, s.last_run]
    .map((r) =>
      typeof r === 'string' || r === null
        ? r
        : `${r.id}:${r.status}:${r.created + r.updated + r.deleted + r.failed}`,
    )
    .join('/')

/** The tab; `onChanged` reloads the base's counters and documents. */
export function SourcesPanel({ base, onChanged }: { base: Corpus; onChanged: () => void }) {
  const admin = me.value?.role === 'admin'
  const sources = useLoad((signal) => listSources(base.id, signal), [base.id])
  const connections = useLoad((signal) => listConnections(signal), [])
  // The latest hundred runs of the base: the history of its sources and imports is among them.
  const runs = useLoad((signal) => latestRuns(base.id, signal), [base.id])
  const active = sources.data?.some(busy) ?? false
  usePoll(sources, active)

  // A run that starts, moves or ends changes the history, and the base's counters and documents.
  // Compared by what the list says of each run, since a short sync may end before any poll sees it.
  const changed = useRef(onChanged)
  changed.current = onChanged
  const seen = useRef<string | null>(null)
  useEffect(() => {
    if (!sources.data) return
    const now = sources.data.map(runsOf).join(' ')
    if (seen.current !== null && seen.current !== now) {
      runs.reload()
      changed.current()
    }
    seen.current = now
  }, [sources.data])

  const [adding, setAdding] = useState(false)
  const [importing, setImporting] = useState(false)
  const [checks, setChecks] = useState<Record<string, Check>>({})
  const [scheduling, setScheduling] = useState<Source | null>(null)
  const [deleting, setDeleting] = useState<Source | null>(null)
  const [note, setNote] = useState<string | null>(null)
  const check = (id: string, c: Check) => setChecks((all) => ({ ...all, [id]: c }))

  return (
    <>
      <section class="base-part" aria-labelledby="sources-heading">
        <div class="section-head">
          <h2 id="sources-heading">Sources</h2>
          <div class="actions">
            <Button
              variant="primary"
              onClick={() => setAdding(true)}
              disabled={adding}
              aria-expanded={adding}
            >
              Add source
            </Button>
            <Button onClick={() => setImporting(true)}>Import a folder</Button>
          </div>
        </div>
        <p class="muted">
          A source keeps this base in step with a folder elsewhere: each sync adds new files, updates changed
          ones and deletes the documents of files gone at the source.
        </p>
        {note && <Note kind="ok">{note}</Note>}
        {adding && connections.data && (
          <AddSource
            base={base}
            connections={connections.data}
            admin={admin}
            onConnectionAdded={connections.reload}
            onClose={() => setAdding(false)}
            onAdded={(s, c) => {
              check(s.id, c)
              setAdding(false)
              setNote(null)
              sources.reload()
            }}
          />
        )}
        <Async load={sources}>
          {(items) =>
            items.length === 0 ? (
              <Empty title="No sources yet">
                <p>
                  Add a source to keep this base in step with a bucket, a server folder, Drive or SharePoint.
                </p>
              </Empty>
            ) : (
              <ul class="source-list" aria-label="Sources of this base">
                {items.map((s) => (
                  <SourceItem
                    key={s.id}
                    source={s}
                    check={checks[s.id]}
                    onCheck={(c) => check(s.id, c)}
                    onChanged={sources.reload}
                    onSchedule={() => setScheduling(s)}
                    onDelete={() => setDeleting(s)}
                  />
                ))}
              </ul>
            )
          }
        </Async>
      </section>

      <section class="base-part" aria-labelledby="history-heading">
        <h2 id="history-heading">Run history</h2>
        <SyncHistory runs={runs} sources={sources.data ?? []} />
      </section>

      <ImportDialog
        open={importing}
        base={base}
        connections={connections.data ?? []}
        admin={admin}
        onConnectionAdded={connections.reload}
        onClose={() => setImporting(false)}
        onImported={() => {
          runs.reload()
          onChanged()
        }}
      />
      <ScheduleDialog
        source={scheduling}
        onClose={() => setScheduling(null)}
        onSaved={() => {
          setScheduling(null)
          sources.reload()
        }}
      />
      <DeleteSource
        source={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={(n) => {
          setNote(
            `The source “${deleting?.name}” was deleted${n > 0 ? ` with its ${n} document${n === 1 ? '' : 's'}` : '; its documents stay in the base'}.`,
          )
          setDeleting(null)
          sources.reload()
          onChanged()
        }}
      />
    </>
  )
}
