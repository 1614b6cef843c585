/**
 * Compare the two strategies on a base: one question through both side by side (latency, time to
 * first token, cost per query), the scale test, and the economics of onboarding.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { servable } from '../api/answers'
import { getBase } from '../api/bases'
import { ApiError } from '../api/client'
import { compareBoth } from '../api/economics'
import type { CompareResp, CompareSide, Passage } from '../api/types'
import { CitedText, SourceDialog, SourceList } from '../components/citations'
import { EconomicsPanel } from '../components/economics-panel'
import { RetryCountdown } from '../components/retry-countdown'
import { ScaleTest } from '../components/scale-test'
import { Async, Button, Empty, ErrorBox, PageHeader } from '../components/ui'
import { useAction } from '../lib/action'
import { fmtCount, fmtMs, fmtRatio, fmtUsd } from '../lib/format'
import { useLoad } from '../lib/use-load'
import '../styles/chat.css'
import '../styles/compare.css'

const NAMES = { cart: 'Cartridges (cart)', rag: 'Retrieval (rag)' } as const

/** The compare page of a base (`/console/bases/:id/compare`). */
export function Compare({ id = '' }: { id?: string }) {
  const base = useLoad((signal) => getBase(id, signal), [id])
  return (
    <>
      <PageHeader
        title="Compare"
        lead={base.data ? `Cartridges against retrieval on ${base.data.name}` : undefined}
      >
        <a class="btn btn-plain" href={`/console/bases/${encodeURIComponent(id)}/chat`}>
          Chat
        </a>
        <a class="btn btn-plain" href={`/console/bases/${encodeURIComponent(id)}`}>
          Documents
        </a>
      </PageHeader>
      <Async load={base}>
        {(b) =>
          servable(b) ? (
            <div class="stack compare">
              <CompareOne baseId={id} />
              <ScaleTest baseId={id} />
              <EconomicsPanel baseId={id} />
            </div>
          ) : (
            <Empty title="This base is not ready for questions yet">
              <p>
                Onboard its documents first.{' '}
                <a href={`/console/bases/${encodeURIComponent(id)}`}>Go to the base</a>
              </p>
            </Empty>
          )
        }
      </Async>
    </>
  )
}

function CompareOne({ baseId }: { baseId: string }) {
  const [question, setQuestion] = useState('')
  const [result, setResult] = useState<CompareResp | null>(null)
  const [retry, setRetry] = useState<{ seconds: number; attempt: number; message: string } | null>(null)
  const [open, setOpen] = useState<{ n: number; source: Passage } | null>(null)
  const abort = useRef<AbortController | null>(null)
  useEffect(() => () => abort.current?.abort(), [])

  // A 503 (the engine is busy) is not a failure: it is counted down and tried again, 30 times at most.
  const compare = useAction(async (q: string, attempt: number) => {
    const controller = new AbortController()
    abort.current = controller
    setRetry(null)
    try {
      setResult(await compareBoth(baseId, q, controller.signal))
    } catch (err) {
      if (controller.signal.aborted) return
      if (err instanceof ApiError && err.status === 503 && attempt < 30)
        setRetry({ seconds: err.retryAfter ?? 1, attempt: attempt + 1, message: err.message })
      else throw err
    }
  })

  return (
    <section class="card stack" aria-labelledby="compare-title">
      <h2 id="compare-title">One question, both strategies</h2>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          if (question.trim()) void compare.run(question.trim(), 1)
        }}
      >
        <div class="field grow">
          <label for="compare-question">Question</label>
          <input
            id="compare-question"
            maxLength={4000}
            required
            value={question}
            onInput={(e) => setQuestion(e.currentTarget.value)}
          />
        </div>
        <Button type="submit" variant="primary" busy={compare.busy}>
          Compare
        </Button>
      </form>
      {retry && (
        <RetryCountdown
          seconds={retry.seconds}
          attempt={retry.attempt}
          message={`The answer engine is busy: ${retry.message}`}
          onRetry={() => compare.run(question.trim(), retry.attempt)}
          onCancel={() => setRetry(null)}
        />
      )}
      <ErrorBox error={compare.error} />
      {result && (
        <>
          <p class="compare-summary" role="status">
            {summaryText(result)}
          </p>
          <div class="grid-2">
            {result.strategies.map((s) => (
              <SideView key={s.key} side={s} result={result} onCite={(i) => setOpen(i)} />
            ))}
          </div>
        </>
      )}
      <SourceDialog source={open} baseId={baseId} onClose={() => setOpen(null)} />
    </section>
  )
}

function summaryText(r: CompareResp): string {
  const { cheaper_than_rag_x: cheaper, faster_than_rag_x: faster } = r.summary
  const parts: string[] = []
  if (faster !== null)
    parts.push(
      faster >= 1 ? `cart answered ${fmtRatio(faster)} faster` : `cart took ${fmtRatio(1 / faster)} as long`,
    )
  if (cheaper !== null)
    parts.push(
      cheaper >= 1
        ? `cost ${fmtRatio(cheaper)} less a query`
        : `cost ${fmtRatio(1 / cheaper)} as much a query at ${fmtCount(r.queries_per_month)} queries a month`,
    )
  const gen = `Answers by the ${r.generator} generator.`
  return parts.length ? `Against rag, ${parts.join(' and ')}. ${gen}` : gen
}

function SideView(props: {
  side: CompareSide
  result: CompareResp
  onCite: (open: { n: number; source: Passage }) => void
}) {
  const s = props.side
  const cite = (i: number) => {
    const src = s.sources[i]
    if (src) props.onCite({ n: i + 1, source: src })
  }
  return (
    <section class="side" aria-labelledby={`side-${s.key}`}>
      <h3 id={`side-${s.key}`}>{NAMES[s.key]}</h3>
      <dl class="figures">
        <div>
          <dt>Latency</dt>
          <dd>{fmtMs(s.latency_ms)}</dd>
        </div>
        <div>
          <dt>Time to first token</dt>
          <dd>{fmtMs(s.ttft_ms)}</dd>
        </div>
        <div>
          <dt>Cost per query</dt>
          <dd>{fmtUsd(s.cost_per_query)}</dd>
        </div>
        <div>
          <dt>Cost per month</dt>
          <dd title={`at ${fmtCount(props.result.queries_per_month)} queries a month`}>
            {fmtUsd(s.cost_per_month)}
          </dd>
        </div>
        <div>
          <dt>CPU time</dt>
          <dd>{fmtMs(s.cpu_ms)}</dd>
        </div>
        <div>
          <dt>Context tokens</dt>
          <dd>{fmtCount(s.context_tokens)}</dd>
        </div>
      </dl>
      <p class="answer-text">
        <CitedText text={s.answer} sources={s.sources} onCite={cite} />
      </p>
      <SourceList sources={s.sources} onOpen={cite} label={`Sources of the ${s.key} answer`} />
    </section>
  )
}
