/**
 * The scale test: both strategies loaded at concurrency levels halving down to 1, each level drawn
 * as it is measured (queries a second and latency), then kept as a saved run if the user wants.
 */
import { useState } from 'preact/hooks'
import { listScaleRuns } from '../api/economics'
import type { ScaleDone } from '../api/types'
import { fmtMs } from '../lib/format'
import { useLoad } from '../lib/use-load'
import { useScaleRun } from '../lib/use-scale-run'
import { LevelCharts, LevelTable } from './scale-levels'
import { SavedRuns, SaveRun } from './scale-runs'
import { Async, Button, Empty, ErrorBox, Field, Note, Progress, Time } from './ui'

/** The scale test section of the compare page. */
export function ScaleTest({ baseId }: { baseId: string }) {
  const [concurrency, setConcurrency] = useState('8')
  const [queries, setQueries] = useState('')
  const { run, running, error, ...test } = useScaleRun(baseId)
  const runs = useLoad((signal) => listScaleRuns(baseId, signal), [baseId])

  function start(ev: Event) {
    ev.preventDefault()
    const qs = queries
      .split('\n')
      .map((q) => q.trim())
      .filter(Boolean)
      .slice(0, 32)
    void test.start(Number(concurrency), qs)
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
          <Button onClick={test.stop}>Stop</Button>
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
            <SavedRuns runs={list} onShow={test.show} />
          )
        }
      </Async>
    </section>
  )
}

/** How the run stopped, in words. */
function stoppedText(d: ScaleDone): string {
  const n = d.levels_run ?? 0
  const took = d.elapsed_ms !== undefined ? ` in ${fmtMs(d.elapsed_ms)}` : ''
  if (d.stopped === 'complete') return `Done: ${n} ${n === 1 ? 'level' : 'levels'} measured${took}.`
  if (d.stopped === 'time_limit') return `Stopped at the server's time limit after ${n} levels${took}.`
  return `Stopped after ${n} ${n === 1 ? 'level' : 'levels'}.`
}
