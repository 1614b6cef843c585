/** Scale test runs kept for later: saving the run just measured, and the list of saved ones. */
import { useState } from 'preact/hooks'
import { saveScaleRun } from '../api/economics'
import type { ScaleRun } from '../api/types'
import { useAction } from '../lib/action'
import type { Run } from '../lib/use-scale-run'
import { Button, ErrorBox, Field, Note, Time } from './ui'

/** Keeps the run just measured, with an optional note. */
export function SaveRun({ baseId, run, onSaved }: { baseId: string; run: Run; onSaved: () => void }) {
  const [note, setNote] = useState('')
  const [saved, setSaved] = useState(false)
  const save = useAction(async (ev: Event) => {
    ev.preventDefault()
    await saveScaleRun(baseId, {
      queries: (run.plan?.queries ?? []).slice(0, 32),
      max_concurrency: run.maxConcurrency,
      records: run.records.slice(0, 7),
      note: note.trim() || undefined,
    })
    setSaved(true)
    onSaved()
  })
  if (saved) return <Note kind="ok">Run saved: it is listed under Saved runs.</Note>
  return (
    <form class="row" onSubmit={save.run}>
      <Field
        label="Note (optional)"
        maxLength={500}
        value={note}
        onInput={(e) => setNote(e.currentTarget.value)}
      />
      <Button type="submit" busy={save.busy}>
        Save this run
      </Button>
      <ErrorBox error={save.error} />
    </form>
  )
}

/** The saved runs of the base, each of which can be shown again. */
export function SavedRuns({ runs, onShow }: { runs: ScaleRun[]; onShow: (r: ScaleRun) => void }) {
  const peak = (r: ScaleRun, k: 'cart' | 'rag') => Math.max(0, ...r.records.map((x) => x[k].qps)).toFixed(1)
  return (
    <div class="table-wrap">
      <table aria-label="Saved runs">
        <thead>
          <tr>
            <th scope="col">Saved</th>
            <th scope="col" class="num">
              Highest concurrency
            </th>
            <th scope="col">Levels</th>
            <th scope="col" class="num">
              Peak cart q/s
            </th>
            <th scope="col" class="num">
              Peak rag q/s
            </th>
            <th scope="col">Note</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>
                <Time iso={r.created_at} />
              </td>
              <td class="num">{r.max_concurrency}</td>
              <td>{r.levels.join(', ')}</td>
              <td class="num">{peak(r, 'cart')}</td>
              <td class="num">{peak(r, 'rag')}</td>
              <td>{r.note ?? <span class="muted">–</span>}</td>
              <td>
                <button type="button" class="btn btn-plain btn-small" onClick={() => onShow(r)}>
                  Show
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
