/**
 * What serving a base costs with each strategy at a chosen volume, and when its onboarding pays
 * for itself. The volume slider is logarithmic (a hundred to a hundred million queries a month)
 * and asks the server only once the user pauses.
 */
import { useEffect, useState } from 'preact/hooks'
import { getEconomics } from '../api/economics'
import type { Economics } from '../api/types'
import { fmtCount, fmtMs, fmtUsd } from '../lib/format'
import { useLoad } from '../lib/use-load'
import { Async } from './ui'

const DEBOUNCE_MS = 300

/** Queries a month for a slider position (log10 of the volume). */
function volumeOf(position: number): number {
  const raw = 10 ** position
  // Round to two significant figures, so the figures are ones people say.
  const mag = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 1)
  return Math.round(raw / mag) * mag
}

/** The economics section of the compare page. */
export function EconomicsPanel({ baseId }: { baseId: string }) {
  const [position, setPosition] = useState(5)
  const [qpm, setQpm] = useState(volumeOf(5))
  const shown = volumeOf(position)
  useEffect(() => {
    const t = setTimeout(() => setQpm(shown), DEBOUNCE_MS)
    return () => clearTimeout(t)
  }, [shown])
  const econ = useLoad((signal) => getEconomics(baseId, qpm, signal), [baseId, qpm])
  return (
    <section class="card stack" aria-labelledby="economics-title">
      <h2 id="economics-title">Economics</h2>
      <div class="field volume">
        <label for="economics-volume">Queries per month</label>
        <div class="row volume-row">
          <input
            id="economics-volume"
            type="range"
            min={2}
            max={8}
            step={0.1}
            value={position}
            aria-valuetext={`${fmtCount(shown)} queries per month`}
            onInput={(e) => setPosition(Number(e.currentTarget.value))}
          />
          <output for="economics-volume" class="volume-value">
            {fmtCount(shown)}
          </output>
        </div>
      </div>
      <Async load={econ}>
        {(e) => (
          <div class="stack" aria-busy={econ.loading}>
            <div class="table-wrap">
              <table aria-label="Cost by strategy">
                <thead>
                  <tr>
                    <th scope="col">Strategy</th>
                    <th scope="col" class="num">
                      Cost per query
                    </th>
                    <th scope="col" class="num">
                      Cost per month
                    </th>
                    <th scope="col" class="num">
                      CPU per query
                    </th>
                    <th scope="col" class="num">
                      Context tokens
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {(['cart', 'rag'] as const).map((k) => (
                    <tr key={k}>
                      <th scope="row">{k}</th>
                      <td class="num">{fmtUsd(e.per_query[k])}</td>
                      <td class="num" data-testid={`month-${k}`}>
                        {fmtUsd(e.per_month[k])}
                      </td>
                      <td class="num">{fmtMs(e.measured[k].cpu_ms)}</td>
                      <td class="num">{fmtCount(e.measured[k].context_tokens)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="breakeven" role="status">
              <strong>Break-even: </strong>
              {breakeven(e)}
            </p>
            <p class="muted">
              Onboarding cost {fmtUsd(e.train_cost)} ({e.train_seconds.toFixed(1)} CPU-seconds for{' '}
              {fmtCount(e.corpus_tokens)} tokens in {e.n_cartridges} cartridges
              {e.trained ? '' : '; some documents are not onboarded yet'}). Measured on {e.measured.queries}{' '}
              probe queries a strategy with the {e.measured.generator} generator, priced at $
              {e.rate_card.cpu_second_usd} a CPU-second and ${e.rate_card.memory_gb_month_usd} a GB-month of
              memory.
            </p>
          </div>
        )}
      </Async>
    </section>
  )
}

function breakeven(e: Economics): string {
  const n = e.breakeven_vs_rag
  if (n === null) {
    return `none at ${fmtCount(e.queries_per_month)} queries a month: a cartridge query costs ${fmtUsd(e.per_query.cart)} against ${fmtUsd(e.per_query.rag)} for retrieval, so onboarding does not pay for itself at this volume.`
  }
  const months = n / e.queries_per_month
  const when =
    months < 1 / 30
      ? 'within a day'
      : months < 1
        ? `in about ${Math.max(1, Math.round(months * 30))} days`
        : `in about ${months < 10 ? months.toFixed(1) : fmtCount(months)} months`
  return `onboarding pays for itself after ${fmtCount(n)} queries, ${when} at ${fmtCount(e.queries_per_month)} queries a month.`
}
