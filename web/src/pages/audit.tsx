/**
 * Audit (admin): the workspace's audit log, newest first, filtered by actor, action, target and
 * time, fifty rows a page with "Load more"; the deletion receipts in a tab of their own; an export
 * of the filtered rows as CSV or JSON Lines (a file saved from the authenticated download); and the
 * check of the log's hash chain.
 */
import { useState } from 'preact/hooks'
import { exportAudit, listAudit, listDeletions } from '../api/audit'
import type { Page } from '../api/client'
import type { AuditEntry, AuditFilters } from '../api/types'
import { AuditFilterForm } from '../components/audit-filters'
import { AuditTable } from '../components/audit-table'
import { AuditVerifyCard } from '../components/audit-verify'
import { Tabs } from '../components/tabs'
import { Async, Button, Empty, ErrorBox, PageHeader } from '../components/ui'
import { useAction } from '../lib/action'
import { saveFile } from '../lib/save-file'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'
import '../styles/security.css'

type Lister = (f: AuditFilters, cursor: string | undefined, signal?: AbortSignal) => Promise<Page<AuditEntry>>

const TABS = [
  { id: 'log', label: 'Log' },
  { id: 'deletions', label: 'Deletion receipts' },
]

/** The audit page. */
export function Audit(_props: { id?: string }) {
  const [filters, setFilters] = useState<AuditFilters>({})
  const [tab, setTab] = useState('log')
  return (
    <>
      <PageHeader
        title="Audit log"
        lead="Every security-relevant action in this workspace: sign-ins, keys, members, single sign-on, connections, deletions, downloads and exports."
      />
      <div class="stack">
        <AuditFilterForm onApply={setFilters} />
        <Export filters={filters} />
        <Tabs label="Audit views" tabs={TABS} selected={tab} onSelect={setTab}>
          {tab === 'log' ? (
            <Entries
              key={`log-${JSON.stringify(filters)}`}
              filters={filters}
              list={listAudit}
              label="Audit log"
            />
          ) : (
            <Entries
              key={`del-${JSON.stringify(filters)}`}
              filters={filters}
              list={listDeletions}
              label="Deletion receipts"
            />
          )}
        </Tabs>
        <AuditVerifyCard />
      </div>
    </>
  )
}

/** The rows the filters keep, a page at a time. */
function Entries(props: { filters: AuditFilters; list: Lister; label: string }) {
  const first = useLoad((signal) => props.list(props.filters, undefined, signal), [])
  const [more, setMore] = useState<Page<AuditEntry>[]>([])
  const last = more.at(-1) ?? first.data
  const loadMore = useAction(async () => {
    const cursor = last?.next_cursor
    if (!cursor) return
    const p = await props.list(props.filters, cursor)
    setMore((m) => [...m, p])
  })
  return (
    <Async load={first}>
      {(page) => {
        const rows = [page, ...more].flatMap((p) => p.items)
        if (rows.length === 0)
          return (
            <Empty title="No rows">
              <p>Nothing in the log matches these filters.</p>
            </Empty>
          )
        return (
          <div class="stack">
            <AuditTable entries={rows} label={props.label} />
            <ErrorBox error={loadMore.error} />
            {last?.next_cursor ? (
              <div>
                <Button onClick={() => loadMore.run()} busy={loadMore.busy}>
                  Load more
                </Button>
              </div>
            ) : (
              <p class="hint">
                {rows.length} {rows.length === 1 ? 'row' : 'rows'}, all shown.
              </p>
            )}
          </div>
        )
      }}
    </Async>
  )
}

/** Exports the filtered rows, oldest first with their hashes, as a file. */
function Export({ filters }: { filters: AuditFilters }) {
  const run = useAction(async (format: 'csv' | 'jsonl') => {
    const file = await exportAudit(filters, format)
    saveFile(file.blob, file.filename)
  })
  const busy = (f: string) => run.busy && run.args?.[0] === f
  return (
    <section class="card stack" aria-labelledby="audit-export-h">
      <h2 id="audit-export-h" class="card-title">
        Export
      </h2>
      <p class="hint">
        The rows the filters keep, oldest first with their hashes, so the chain can be checked away from
        Engram. The export itself is audited.
      </p>
      <div class="audit-actions">
        <Button onClick={() => run.run('csv')} busy={busy('csv')} disabled={run.busy}>
          Export CSV
        </Button>
        <Button onClick={() => run.run('jsonl')} busy={busy('jsonl')} disabled={run.busy}>
          Export JSON Lines
        </Button>
      </div>
      <ErrorBox error={run.error} />
    </section>
  )
}
