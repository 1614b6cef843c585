/**
 * Webhooks (admin): subscribe an endpoint to event types (its signing secret shown once, with a
 * copy button), the endpoints with their state and last delivery, each one's deliveries, a test
 * event, re-enabling an endpoint disabled after failures, and deletion after a confirmation.
 */

import { useState } from 'preact/hooks'
import {
  createWebhook,
  listWebhooks,
  type Webhook,
  type WebhookCreated,
  type WebhookEvent,
} from '../api/webhooks'
import { CheckList } from '../components/check-list'
import { CopyButton } from '../components/copy-button'
import { Async, Button, Dialog, Empty, ErrorBox, Field, PageHeader } from '../components/ui'
import { WebhookDeliveries } from '../components/webhook-deliveries'
import { DeleteWebhook, WebhooksTable } from '../components/webhooks-table'
import { useAction } from '../lib/action'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'

/** The event types an endpoint can subscribe to, as the server names them. */
export const EVENTS: { type: WebhookEvent; hint: string }[] = [
  { type: 'document.ready', hint: 'a document answers questions now' },
  { type: 'document.failed', hint: 'a document could not be extracted or onboarded' },
  { type: 'document.deleted', hint: 'a document was deleted' },
  { type: 'onboarding.finished', hint: 'an onboarding run ended' },
  { type: 'onboarding.failed', hint: 'an onboarding run failed' },
  { type: 'onboarding.cancelled', hint: 'an onboarding run was cancelled' },
  { type: 'sync.finished', hint: 'an upload, push or source sync ended' },
  { type: 'api_key.created', hint: 'an API key was created' },
  { type: 'api_key.revoked', hint: 'an API key was revoked' },
  { type: 'member.joined', hint: 'an invitation was accepted' },
  { type: 'member.removed', hint: 'a member was removed' },
]

/** The Webhooks page. */
export function Webhooks(_props: { id?: string }) {
  const hooks = useLoad((signal) => listWebhooks(signal), [])
  const [created, setCreated] = useState<WebhookCreated | null>(null)
  const [deleting, setDeleting] = useState<Webhook | null>(null)
  const [shown, setShown] = useState<string | null>(null)
  // A delivery made here (a test, a retry) makes the deliveries view read again.
  const [sent, setSent] = useState(0)
  const open = hooks.data?.find((h) => h.id === shown) ?? null
  return (
    <>
      <PageHeader
        title="Webhooks"
        lead="Engram tells your own systems what happens in this workspace: each event is POSTed to the endpoints subscribed to its type, signed so the receiver can check it came from here."
      />
      <CreateWebhook
        onCreated={(w) => {
          setCreated(w)
          hooks.reload()
        }}
      />
      <h2>Endpoints</h2>
      <Async load={hooks}>
        {(list) =>
          list.length === 0 ? (
            <Empty title="No endpoints yet">
              <p>Add one above to receive events. See docs/webhooks.md for how to verify a delivery.</p>
            </Empty>
          ) : (
            <WebhooksTable
              hooks={list}
              shown={shown}
              onShow={(id) => setShown(shown === id ? null : id)}
              onChanged={(id) => {
                setShown(id)
                setSent((n) => n + 1)
                hooks.reload()
              }}
              onDelete={setDeleting}
            />
          )
        }
      </Async>
      {open && (
        <WebhookDeliveries
          hook={open}
          sent={sent}
          onSent={() => {
            setSent((n) => n + 1)
            hooks.reload()
          }}
          onSettled={hooks.reload}
          onClose={() => setShown(null)}
        />
      )}
      <SecretDialog created={created} onClose={() => setCreated(null)} />
      <DeleteWebhook
        target={deleting}
        onDone={() => {
          if (deleting?.id === shown) setShown(null)
          setDeleting(null)
          hooks.reload()
        }}
        onCancel={() => setDeleting(null)}
      />
    </>
  )
}

function CreateWebhook({ onCreated }: { onCreated: (w: WebhookCreated) => void }) {
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<WebhookEvent[]>([])
  const create = useAction(async (e: Event) => {
    e.preventDefault()
    // Sent in the order they are listed, whatever order they were ticked in.
    const chosen = EVENTS.map((ev) => ev.type).filter((t) => events.includes(t))
    const w = await createWebhook({
      url: url.trim(),
      events: chosen,
      description: description.trim() || undefined,
    })
    setUrl('')
    setDescription('')
    setEvents([])
    onCreated(w)
  })
  return (
    <form class="card stack key-form" onSubmit={create.run} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title" class="card-title">
        Add an endpoint
      </h2>
      <div class="grid-2">
        <Field
          label="Endpoint URL"
          type="url"
          required
          maxLength={2048}
          placeholder="https://example.com/engram-events"
          value={url}
          hint="Where events are POSTed. HTTPS, no user name or password in it."
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <Field
          label="Description (optional)"
          maxLength={500}
          value={description}
          hint="Say what receives it, e.g. “ticketing sync”."
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </div>
      <CheckList
        legend="Events to send (at least one)"
        options={EVENTS.map((ev) => ({ value: ev.type, label: <code>{ev.type}</code>, hint: ev.hint }))}
        value={events}
        onChange={setEvents}
      />
      {events.length === 0 && (
        <p class="hint" role="status">
          Choose at least one event.
        </p>
      )}
      <ErrorBox error={create.error} />
      <div>
        <Button variant="primary" type="submit" busy={create.busy} disabled={events.length === 0}>
          Add endpoint
        </Button>
      </div>
    </form>
  )
}

/** The one time the signing secret is shown: a warning, the secret, a copy button. */
function SecretDialog(props: { created: WebhookCreated | null; onClose: () => void }) {
  const { created, onClose } = props
  return (
    <Dialog open={created !== null} title="Your endpoint's signing secret" onClose={onClose}>
      {created && (
        <div class="stack">
          <div class="alert alert-warn" role="note">
            <strong>Copy it now: it is shown once.</strong> Your receiver needs it to check each delivery's{' '}
            <code>webhook-signature</code>. Engram keeps it encrypted and never shows it again; if you lose
            it, delete the endpoint and add it again.
          </div>
          <div class="field">
            <label for="new-webhook-secret">Signing secret of {created.url}</label>
            <input
              id="new-webhook-secret"
              class="secret"
              readOnly
              value={created.secret}
              onFocus={(e) => e.currentTarget.select()}
            />
          </div>
          <p class="hint">Events: {created.events.join(', ')}.</p>
          <div class="dialog-actions">
            <CopyButton text={created.secret} label="Copy the secret" />
            <Button variant="primary" onClick={onClose}>
              I have copied it
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  )
}
