/** Usage (admin): the period's totals, the questions asked each day as a chart, and each base's share. */
import type { ComponentChild } from 'preact'
import { getUsage } from '../api/admin'
import type { Usage as UsageData } from '../api/types'
import { DailyChart } from '../components/daily-chart'
import { TableScroll } from '../components/table-scroll'
import { Thumb } from '../components/thumb'
import { Async, Button, Empty, PageHeader } from '../components/ui'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'

/** Bytes as people read them (KB = 1,000 bytes, as disks are sold). */
function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let v = n
  let i = 0
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return i === 0 ? `${v} ${units[0]}` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`
}

const count = new Intl.NumberFormat()

/** The usage page. */
export function Usage(_props: { id?: string }) {
  const usage = useLoad((signal) => getUsage(signal), [])
  return (
    <>
      <PageHeader
        title="Usage"
        lead={
          usage.data
            ? `The last ${usage.data.period.days} days, ${usage.data.period.start} to ${usage.data.period.end} (UTC).`
            : 'The last 30 days.'
        }
      >
        <Button onClick={usage.reload} busy={usage.loading && usage.data !== undefined}>
          Refresh
        </Button>
      </PageHeader>
      <Async load={usage}>{(u) => <UsageView u={u} />}</Async>
    </>
  )
}

/**
 * Ratings of answers, up and down: "3 good, 1 bad", each after its thumb. The thumbs are drawn
 * (an emoji needs a font a server or a headless browser may lack); the words say it without them.
 */
function Rated({ n }: { n: { feedback_up: number; feedback_down: number } }) {
  return (
    <span class="ratings">
      <span class="rating">
        <Thumb />
        {`${count.format(n.feedback_up)} good,`}
      </span>{' '}
      <span class="rating">
        <Thumb down />
        {`${count.format(n.feedback_down)} bad`}
      </span>
    </span>
  )
}

function UsageView({ u }: { u: UsageData }) {
  const t = u.totals
  // The scale test's load and compare's questions measure the strategies: not people's questions.
  const load = t.load_test_queries + t.compare_queries
  const tiles: [string, ComponentChild, string?][] = [
    ['Questions asked', count.format(t.queries), `Load tests and comparisons: ${count.format(load)}`],
    ['Feedback on answers', <Rated n={t} />, 'Ratings given to answers in the chat or through the API'],
    ['Document bases', count.format(t.bases)],
    ['Documents', count.format(t.documents)],
    ['Storage', formatBytes(t.storage_bytes)],
    ['Members', count.format(t.members)],
    ['Active API keys', count.format(t.api_keys)],
  ]
  return (
    <div class="stack">
      <section aria-labelledby="totals-title">
        <h2 id="totals-title" class="visually-hidden">
          Totals
        </h2>
        <dl class="tiles">
          {tiles.map(([label, value, note]) => (
            <div class="tile card" key={label}>
              <dt>{label}</dt>
              <dd>
                {value}
                {note && <span class="tile-note">{note}</span>}
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <section aria-labelledby="daily-title">
        <h2 id="daily-title">Questions asked per day</h2>
        {t.queries === 0 ? (
          <p class="hint">
            No questions were asked in this period yet. Ask one in a base's chat, through the API or an MCP
            agent, and it is counted here on the day it was answered.
          </p>
        ) : (
          <p class="hint">
            Questions people and their applications asked; load tests and comparisons are left out.
          </p>
        )}
        <div class="card">
          <DailyChart points={u.daily.map((d) => ({ date: d.date, value: d.queries }))} label="Questions" />
        </div>
      </section>
      <section aria-labelledby="bases-title">
        <h2 id="bases-title">By base</h2>
        {u.bases.length === 0 ? (
          <Empty title="No document bases yet">
            <p>
              <a href="/console/bases">Create a base</a> and upload documents; each base's questions,
              documents and storage show here.
            </p>
          </Empty>
        ) : (
          <TableScroll label="Questions by base">
            <table>
              <thead>
                <tr>
                  <th scope="col">Base</th>
                  <th scope="col" class="num">
                    Questions asked
                  </th>
                  <th scope="col" class="num">
                    Load tests and comparisons
                  </th>
                  <th scope="col" class="num">
                    Feedback
                  </th>
                  <th scope="col" class="num">
                    Documents
                  </th>
                  <th scope="col" class="num">
                    Storage
                  </th>
                </tr>
              </thead>
              <tbody>
                {u.bases.map((b) => (
                  <tr key={b.corpus_id}>
                    <td>
                      {b.name === null ? (
                        <span class="muted">Deleted base ({b.corpus_id})</span>
                      ) : (
                        <a href={`/console/bases/${b.corpus_id}`}>{b.name}</a>
                      )}
                    </td>
                    <td class="num">{count.format(b.queries)}</td>
                    <td class="num muted">{count.format(b.load_test_queries + b.compare_queries)}</td>
                    <td class="num">
                      <Rated n={b} />
                    </td>
                    <td class="num">{count.format(b.documents)}</td>
                    <td class="num">{formatBytes(b.storage_bytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
    </div>
  )
}
