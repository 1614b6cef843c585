/**
 * One endpoint's deliveries, newest first: the event, whether it was delivered, each attempt's
 * answer (or error) and time, when a pending one is tried next; a failed one can be sent again.
 */
import { useEffect } from 'preact/hooks'
import { listDeliveries, retryDelivery, type Webhook, type WebhookDelivery } from '../api/webhooks'
import { useAction } from '../lib/action'
import { useLoad } from '../lib/use-load'
import { usePoll } from '../lib/use-poll'
import { TableScroll } from './table-scroll'
import { Async, Button, Empty, ErrorBox, Time } from './ui'
import '../styles/webhooks.css'

const STATUS: Record<WebhookDelivery['status'], { label: string; badge: string }> = {
  pending: { label: 'Pending', badge: 'badge-warn' },
  succeeded: { label: 'Delivered', badge: 'badge-ok' },
  failed: { label: 'Failed', badge: 'badge-error' },
}

export function WebhookDeliveries(props: {
  hook: Webhook
  /** Changes when a delivery was made from the page: read again. */
  sent: number
  onSent: () => void
  /** The deliveries were read with none pending: the endpoint's state and last delivery may have changed. */
  onSettled: () => void
  onClose: () => void
}) {
  const { hook } = props
  const deliveries = useLoad((signal) => listDeliveries(hook.id, signal), [hook.id, props.sent])
  // While a delivery is pending, its next attempts are read as they come.
  const pending = deliveries.data?.some((d) => d.status === 'pending') ?? false
  usePoll(deliveries, pending)
  // Each answer with nothing pending may follow a delivery that just ended: the list reads again.
  useEffect(() => {
    if (deliveries.data && !pending) props.onSettled()
  }, [deliveries.data])
  const retry = useAction(async (d: WebhookDelivery) => {
    await retryDelivery(hook.id, d.id)
    props.onSent()
  })
  return (
    <section class="card stack" aria-labelledby="deliveries-title">
      <div class="webhook-head">
        <h2 id="deliveries-title" class="card-title">
          Deliveries to <code class="webhook-url">{hook.url}</code>
        </h2>
        <div class="webhook-actions">
          <Button onClick={deliveries.reload} busy={deliveries.loading}>
            Refresh
          </Button>
          <Button onClick={props.onClose}>Close</Button>
        </div>
      </div>
      <ErrorBox error={retry.error} />
      <Async load={deliveries}>
        {(list) =>
          list.length === 0 ? (
            <Empty title="No deliveries yet">
              <p>Events of the types it subscribes to are delivered here; “Send test” sends one now.</p>
            </Empty>
          ) : (
            <TableScroll label={`Deliveries to ${hook.url}`}>
              <table>
                <caption class="visually-hidden">Deliveries to {hook.url}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <code>{d.event_type}</code>
                        <div class="muted small">
                          <code>{d.id}</code>
                        </div>
                      </td>
                      <td>
                        <span class={`badge ${STATUS[d.status].badge}`}>{STATUS[d.status].label}</span>
                        {d.next_attempt_at && (
                          <div class="muted small">
                            next try <Time iso={d.next_attempt_at} />
                          </div>
                        )}
                      </td>
                      <td>
                        <Attempts delivery={d} />
                      </td>
                      <td>
                        <Time iso={d.created_at} />
                      </td>
                      <td>
                        {d.status === 'failed' && hook.enabled && (
                          <button
                            type="button"
                            class="btn btn-plain btn-small"
                            aria-label={`Send again: ${d.event_type} ${d.id}`}
                            disabled={retry.busy}
                            onClick={() => retry.run(d)}
                          >
                            Send again
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Async>
    </section>
  )
}

/** Each attempt: the receiver's status (or the error), how long it took, when. */
function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <span class="muted">none yet</span>
  return (
    <ol class="attempts">
      {delivery.attempts.map((a) => (
        <li key={a.attempt}>
          <span class={a.ok ? 'ok' : 'failed'}>
            {a.status_code === null ? 'no answer' : `HTTP ${a.status_code}`}
          </span>
          {a.error && a.error !== `HTTP ${a.status_code}` && <span class="muted"> — {a.error}</span>}
          <span class="muted small">
            {' '}
            ({a.duration_ms} ms, <Time iso={a.at} />)
          </span>
        </li>
      ))}
    </ol>
  )
}
