/**
 * The scale test: both strategies loaded at concurrency levels halving down to 1, each level drawn
 * as it is measured (queries a second and latency), then kept as a saved run if the user wants.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, listAll } from '../api/client'
import type { LevelRecord, ScaleDone, ScaleRun, ScaleStart } from '../api/economics'
import { postStream } from '../api/stream'
import { fmtCount, fmtMs } from '../lib/format'
import { useLoad } from '../lib/use-load'
import { LineChart } from './chart'
import { Async, Button, Empty, ErrorBox, Field, Note, Progress, Time } from './ui'

interface Run {
  plan: ScaleStart | null
  records: LevelRecord[]
  done: ScaleDone | null
  maxConcurrency: number
  /** A saved run shown again, rather than one measured now. */
  saved?: ScaleRun
}

/** The scale test section of the compare page. */
export function ScaleTest({ baseId }: { baseId: string }) {
  const [concurrency, setConcurrency] = useState('8')
  const [queries, setQueries] = useState('')
  const [run, setRun] = useState<Run | null>(null)
  const [running, setRunning] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const abort = useRef<AbortController | null>(null)
  const runs = useLoad(
    (signal) => listAll<ScaleRun>(`/corpora/${encodeURIComponent(baseId)}/scale-runs`, { signal }),
    [baseId],
  )

  useEffect(() => () => abort.current?.abort(), [])

  async function start(ev: Event) {
    ev.preventDefault()
    const max = Number(concurrency)
    const qs = queries
      .split('\n')
      .map((q) => q.trim())
      .filter(Boolean)
      .slice(0, 32)
    const controller = new AbortController()
    abort.current = controller
    setError(null)
    setRunning(true)
    let current: Run = { plan: null, records: [], done: null, maxConcurrency: max }
    setRun(current)
    const update = (change: Partial<Run>) => {
      current = { ...current, ...change }
      setRun(current)
    }
    try {
      const events = postStream(`/corpora/${encodeURIComponent(baseId)}/scale-test/stream`, {
        json: { max_concurrency: max, queries: qs.length ? qs : undefined },
        signal: controller.signal,
      })
      for await (const e of events) {
        if (e.event === 'start') update({ plan: e.data as ScaleStart })
        else if (e.event === 'level') update({ records: [...current.records, e.data as LevelRecord] })
        else if (e.event === 'done') update({ done: e.data as ScaleDone })
        else if (e.event === 'error') setError(new Error((e.data as { error: string }).error))
      }
    } catch (err) {
      if (controller.signal.aborted)
        update({ done: { done: true, stopped: 'aborted', levels_run: current.records.length } })
      else setError(err as Error)
    } finally {
      setRunning(false)
      abort.current = null
    }
  }

  const levels = run?.plan?.levels.length ?? 0
  return (
    <section class="card stack" aria-labelledby="scale-title">
      <h2 id="scale-title">Scale test</h2>
      <p class="lead">
        Both strategies answer at once at each concurrency level, from the highest down to one; the server
        bounds the time and the queries of a test.
      </p>
      <form class="row" onSubmit={start}>
        <Field
          label="Highest concurrency"
          type="number"
          min={1}
          max={64}
          required
          value={concurrency}
          onInput={(e) => setConcurrency(e.currentTarget.value)}
        />
        <div class="field grow">
          <label for="scale-queries">Questions (optional, one a line)</label>
          <textarea
            id="scale-queries"
            rows={2}
            value={queries}
            aria-describedby="scale-queries-hint"
            onInput={(e) => setQueries(e.currentTarget.value)}
          />
          <p class="hint" id="scale-queries-hint">
            Left empty, questions are sampled from the base's own text.
          </p>
        </div>
        {running ? (
          <Button onClick={() => abort.current?.abort()}>Stop</Button>
        ) : (
          <Button type="submit" variant="primary">
            Run scale test
          </Button>
        )}
      </form>
      <ErrorBox error={error} />
      {run && (
        <div class="stack">
          {running && (
            <>
              <Progress value={levels ? run.records.length / levels : 0} label="Scale test progress" />
              <p class="muted" role="status">
                {run.plan
                  ? `Measuring level ${Math.min(run.records.length + 1, levels)} of ${levels}…`
                  : 'Starting the scale test…'}
              </p>
            </>
          )}
          {run.done && (
            <Note kind={run.done.stopped === 'complete' ? 'ok' : 'warn'}>{stoppedText(run.done)}</Note>
          )}
          {run.saved && (
            <p class="muted">
              Showing the run saved <Time iso={run.saved.created_at} />
              {run.saved.note ? `: ${run.saved.note}` : ''}.
            </p>
          )}
          <LevelCharts records={run.records} />
          <LevelTable records={run.records} />
          {run.done && !run.saved && run.records.length > 0 && (
            <SaveRun baseId={baseId} run={run} onSaved={runs.reload} />
          )}
        </div>
      )}
      <h3>Saved runs</h3>
      <Async load={runs}>
        {(list) =>
          list.length === 0 ? (
            <Empty title="No saved runs yet">
              <p>Run a scale test, then save it to compare later.</p>
            </Empty>
          ) : (
            <SavedRuns
              runs={list}
              onShow={(r) =>
                setRun({
                  plan: null,
                  records: r.records,
                  done: null,
                  maxConcurrency: r.max_concurrency,
                  saved: r,
                })
              }
            />
          )
        }
      </Async>
    </section>
  )
}

function stoppedText(d: ScaleDone): string {
  const n = d.levels_run ?? 0
  const took = d.elapsed_ms !== undefined ? ` in ${fmtMs(d.elapsed_ms)}` : ''
  if (d.stopped === 'complete') return `Done: ${n} ${n === 1 ? 'level' : 'levels'} measured${took}.`
  if (d.stopped === 'time_limit') return `Stopped at the server's time limit after ${n} levels${took}.`
  return `Stopped after ${n} ${n === 1 ? 'level' : 'levels'}.`
}

/** The levels ascending (the test runs them highest first). */
function ascending(records: LevelRecord[]): LevelRecord[] {
  return [...records].sort((a, b) => a.level - b.level)
}

function LevelCharts({ records }: { records: LevelRecord[] }) {
  const rows = ascending(records)
  const x = rows.map((r) => r.level)
  return (
    <div class="grid-2">
      <LineChart
        title="Queries per second by concurrency"
        x={x}
        xLabel="Concurrency"
        yLabel="Queries/s"
        series={[
          { label: 'cart', color: '--accent', values: rows.map((r) => r.cart.qps) },
          { label: 'rag', color: '--warn', values: rows.map((r) => r.rag.qps) },
        ]}
      />
      <LineChart
        title="Latency by concurrency (ms)"
        x={x}
        xLabel="Concurrency"
        yLabel="ms"
        series={[
          { label: 'cart mean', color: '--accent', values: rows.map((r) => r.cart.lat) },
          { label: 'rag mean', color: '--warn', values: rows.map((r) => r.rag.lat) },
          { label: 'cart p95', color: '--accent', dash: [6, 4], values: rows.map((r) => r.cart.lat_p95) },
          { label: 'rag p95', color: '--warn', dash: [6, 4], values: rows.map((r) => r.rag.lat_p95) },
        ]}
      />
    </div>
  )
}

function LevelTable({ records }: { records: LevelRecord[] }) {
  if (records.length === 0) return null
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Scale test levels</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              Concurrency
            </th>
            <th scope="col" class="num">
              cart q/s
            </th>
            <th scope="col" class="num">
              cart latency (p95)
            </th>
            <th scope="col" class="num">
              rag q/s
            </th>
            <th scope="col" class="num">
              rag latency (p95)
            </th>
            <th scope="col" class="num">
              Answered
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <tr key={r.level}>
              <th scope="row" class="num">
                {r.level}
                {r.partial ? ' (partial)' : ''}
              </th>
              <td class="num">{r.cart.qps.toFixed(1)}</td>
              <td class="num">
                {fmtMs(r.cart.lat)} ({fmtMs(r.cart.lat_p95)})
              </td>
              <td class="num">{r.rag.qps.toFixed(1)}</td>
              <td class="num">
                {fmtMs(r.rag.lat)} ({fmtMs(r.rag.lat_p95)})
              </td>
              <td class="num">
                {fmtCount(r.cart.ok + r.rag.ok)} / {fmtCount(r.cart.reqs + r.rag.reqs)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function SaveRun({ baseId, run, onSaved }: { baseId: string; run: Run; onSaved: () => void }) {
  const [note, setNote] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const [saved, setSaved] = useState(false)
  async function save(ev: Event) {
    ev.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await api(`/corpora/${encodeURIComponent(baseId)}/scale-runs`, {
        json: {
          queries: (run.plan?.queries ?? []).slice(0, 32),
          max_concurrency: run.maxConcurrency,
          records: run.records.slice(0, 7),
          note: note.trim() || undefined,
        },
      })
      setSaved(true)
      onSaved()
    } catch (e) {
      setError(e as Error)
    } finally {
      setBusy(false)
    }
  }
  if (saved) return <Note kind="ok">Run saved: it is listed under Saved runs.</Note>
  return (
    <form class="row" onSubmit={save}>
      <Field
        label="Note (optional)"
        maxLength={500}
        value={note}
        onInput={(e) => setNote(e.currentTarget.value)}
      />
      <Button type="submit" busy={busy}>
        Save this run
      </Button>
      <ErrorBox error={error} />
    </form>
  )
}

function SavedRuns({ runs, onShow }: { runs: ScaleRun[]; onShow: (r: ScaleRun) => void }) {
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
