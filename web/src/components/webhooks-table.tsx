/**
 * The Webhooks page's endpoints: URL, events, state, last delivery, and per endpoint its
 * deliveries, a test event, re-enabling after failures, deletion (after a confirmation).
 */
import { deleteWebhook, enableWebhook, testWebhook, type Webhook } from '../api/webhooks'
import { useAction } from '../lib/action'
import { TableScroll } from './table-scroll'
import { Confirm, ErrorBox, Time } from './ui'
import '../styles/webhooks.css'

/** Enabled, or disabled after a run of failed deliveries, as a badge. */
export function WebhookState({ hook }: { hook: Webhook }) {
  if (hook.enabled) return <span class="badge badge-ok">Enabled</span>
  return <span class="badge badge-error">Disabled after failures</span>
}

/** The last attempt made to the endpoint: when, which event, the receiver's answer. */
function LastDelivery({ hook }: { hook: Webhook }) {
  const d = hook.last_delivery
  if (!d) return <span class="muted">none yet</span>
  return (
    <>
      <span class={d.ok ? 'badge badge-ok' : 'badge badge-error'}>
        {d.status_code === null ? 'no answer' : `HTTP ${d.status_code}`}
      </span>{' '}
      <code>{d.event_type}</code>
      <div class="muted small">
        <Time iso={d.at} />
        {d.attempt > 1 && ` (attempt ${d.attempt})`}
      </div>
    </>
  )
}

export function WebhooksTable(props: {
  hooks: Webhook[]
  shown: string | null
  onShow: (id: string) => void
  /** A test was queued or the endpoint enabled: its deliveries are shown and read again. */
  onChanged: (id: string) => void
  onDelete: (w: Webhook) => void
}) {
  const { hooks, shown, onShow, onChanged, onDelete } = props
  const test = useAction(async (w: Webhook) => {
    await testWebhook(w.id)
    onChanged(w.id)
  })
  const enable = useAction(async (w: Webhook) => {
    await enableWebhook(w.id)
    onChanged(w.id)
  })
  const busy = (a: typeof test, w: Webhook) => a.busy && a.args?.[0].id === w.id
  return (
    <>
      <ErrorBox error={test.error ?? enable.error} />
      <TableScroll label="Webhook endpoints">
        <table>
          <caption class="visually-hidden">Webhook endpoints of the workspace, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Last delivery</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {hooks.map((w) => (
              <tr key={w.id} class={w.enabled ? undefined : 'webhook-off'}>
                <td>
                  <code class="webhook-url">{w.url}</code>
                  {w.description && <div class="muted small">{w.description}</div>}
                </td>
                <td>{w.events.join(', ')}</td>
                <td>
                  <WebhookState hook={w} />
                  {!w.enabled && (
                    <div class="muted small">
                      after{' '}
                      {w.consecutive_failures === 1
                        ? 'a failed attempt'
                        : `${w.consecutive_failures} failed attempts`}
                      , <Time iso={w.disabled_at} />
                    </div>
                  )}
                </td>
                <td>
                  <LastDelivery hook={w} />
                </td>
                <td>
                  <Time iso={w.created_at} />
                </td>
                <td class="webhook-actions">
                  <button
                    type="button"
                    class="btn btn-plain btn-small"
                    aria-expanded={shown === w.id}
                    aria-label={`Deliveries to ${w.url}`}
                    onClick={() => onShow(w.id)}
                  >
                    Deliveries
                  </button>
                  {w.enabled ? (
                    <button
                      type="button"
                      class="btn btn-plain btn-small"
                      aria-label={`Send test to ${w.url}`}
                      disabled={busy(test, w)}
                      aria-busy={busy(test, w)}
                      onClick={() => test.run(w)}
                    >
                      Send test
                    </button>
                  ) : (
                    <button
                      type="button"
                      class="btn btn-small"
                      aria-label={`Enable ${w.url}`}
                      disabled={busy(enable, w)}
                      aria-busy={busy(enable, w)}
                      onClick={() => enable.run(w)}
                    >
                      Enable
                    </button>
                  )}
                  <button
                    type="button"
                    class="btn btn-plain btn-small"
                    aria-label={`Delete ${w.url}`}
                    onClick={() => onDelete(w)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  )
}

export function DeleteWebhook(props: { target: Webhook | null; onDone: () => void; onCancel: () => void }) {
  const w = props.target
  const remove = useAction(async (hook: Webhook) => {
    await deleteWebhook(hook.id)
    props.onDone()
  })
  return (
    <Confirm
      open={w !== null}
      title="Delete this webhook endpoint?"
      confirmLabel="Delete endpoint"
      busy={remove.busy}
      error={remove.error}
      onConfirm={() => w && remove.run(w)}
      onCancel={() => {
        remove.reset()
        props.onCancel()
      }}
    >
      {w && (
        <p>
          <code>{w.url}</code> gets no more events, and its deliveries are deleted with it; any still queued
          are not sent. This cannot be undone.
        </p>
      )}
    </Confirm>
  )
}
