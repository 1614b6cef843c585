/**
 * The customer-managed key: where it lives (a local key Engram holds, or an AWS KMS key), whether
 * it is on, what it sealed, and rotation. Turning it off is asked first: the workspace's content
 * is unreadable from that moment until it is turned on again.
 */
import { useState } from 'preact/hooks'
import { putKmsKey, rotateKmsKey } from '../api/security'
import type { KmsKey, KmsKeyReq } from '../api/types'
import { useAction } from '../lib/action'
import { Button, Confirm, ErrorBox, Field, Note, Time } from './ui'

const STATUS: Record<KmsKey['status'], string> = {
  not_configured: 'Not set: objects are stored plain',
  enabled: 'On',
  disabled: 'Off: the content cannot be read or written',
}

/** What the key sealed, and the pass running. */
function KeyFacts({ k }: { k: KmsKey }) {
  return (
    <dl class="facts" aria-label="Key status">
      <dt>Status</dt>
      <dd>
        <span
          class={`badge badge-${k.status === 'enabled' ? 'ok' : k.status === 'disabled' ? 'error' : 'warn'}`}
        >
          {STATUS[k.status]}
        </span>
      </dd>
      <dt>Provider</dt>
      <dd>{k.provider ?? '—'}</dd>
      {k.key_id && (
        <>
          <dt>Key id</dt>
          <dd>
            <code>{k.key_id}</code>
          </dd>
        </>
      )}
      <dt>Objects sealed</dt>
      <dd>
        {k.encrypted_objects} ({k.plaintext_objects} still plain
        {k.counted_at && (
          <>
            , counted <Time iso={k.counted_at} />
          </>
        )}
        )
      </dd>
      <dt>Background pass</dt>
      <dd>{k.pass === 'encrypt' ? 'sealing older objects' : k.pass === 'rotate' ? 'rotating' : 'none'}</dd>
      <dt>Last rotated</dt>
      <dd>
        <Time iso={k.rotated_at} />
      </dd>
    </dl>
  )
}

/** The key card; `onSaved` gets the key's state after a save or a rotation. */
export function KmsKeyForm(props: { current: KmsKey; onSaved: (k: KmsKey) => void }) {
  const k = props.current
  const [provider, setProvider] = useState<KmsKeyReq['provider']>(k.provider ?? 'local')
  const [keyId, setKeyId] = useState(k.key_id ?? '')
  const [endpoint, setEndpoint] = useState(k.endpoint ?? '')
  const [region, setRegion] = useState(k.region ?? '')
  const [enabled, setEnabled] = useState(k.status !== 'disabled')
  const [nextKeyId, setNextKeyId] = useState('')
  const [asking, setAsking] = useState(false)
  const [note, setNote] = useState<string | null>(null)
  const aws = provider === 'aws-kms'
  const save = useAction(async () => {
    setNote(null)
    const body: KmsKeyReq = { provider, enabled }
    if (aws) {
      body.key_id = keyId.trim()
      if (endpoint.trim()) body.endpoint = endpoint.trim()
      if (region.trim()) body.region = region.trim()
    }
    const next = await putKmsKey(body)
    setAsking(false)
    setNote(next.status === 'disabled' ? 'The key is off.' : 'Key settings saved.')
    props.onSaved(next)
  })
  const rotate = useAction(async () => {
    setNote(null)
    const next = await rotateKmsKey(nextKeyId.trim() || undefined)
    setNextKeyId('')
    // The key id saved from now on is the one rotated to.
    setKeyId(next.key_id ?? '')
    setNote('Rotation started: every data key is re-wrapped in the background.')
    props.onSaved(next)
  })
  const turningOff = k.status === 'enabled' && !enabled
  return (
    <form
      class="card stack"
      aria-labelledby="kms-h"
      onSubmit={(e) => {
        e.preventDefault()
        if (turningOff) setAsking(true)
        else save.run()
      }}
    >
      <h2 id="kms-h" class="card-title">
        Encryption key
      </h2>
      <p class="hint">
        The workspace's files, their extracted text and its search cartridges are sealed with data keys
        wrapped by this key. Engram never shows the key itself.
      </p>
      <KeyFacts k={k} />
      <div class="field">
        <label for="kms-provider">Provider</label>
        <select
          id="kms-provider"
          value={provider}
          disabled={k.provider !== null}
          aria-describedby="kms-provider-hint"
          onChange={(e) => setProvider(e.currentTarget.value as KmsKeyReq['provider'])}
        >
          <option value="local">Local key (held by Engram, sealed under the server secret)</option>
          <option value="aws-kms">AWS KMS (or a KMS speaking its API)</option>
        </select>
        <p class="hint" id="kms-provider-hint">
          {k.provider ? 'The provider cannot change once set.' : 'Chosen once: it cannot change later.'}
        </p>
      </div>
      {aws && (
        <div class="grid-2">
          <Field
            label="Key id"
            required
            value={keyId}
            hint="The KMS key id, ARN or alias."
            disabled={k.provider === 'aws-kms'}
            onInput={(e) => setKeyId(e.currentTarget.value)}
          />
          <Field label="Region" value={region} onInput={(e) => setRegion(e.currentTarget.value)} />
          <Field
            label="Endpoint (optional)"
            type="url"
            value={endpoint}
            hint="Leave empty for AWS itself; the URL of an on-premises KMS otherwise."
            onInput={(e) => setEndpoint(e.currentTarget.value)}
          />
        </div>
      )}
      <label class="check switch">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <span>
          <strong>Key enabled</strong>
        </span>
      </label>
      {turningOff && (
        <div class="alert alert-warn" role="note">
          <strong>Turning the key off makes this workspace's content unreadable at once.</strong> Answers,
          MCP, document text and downloads, onboarding and uploads are all refused until it is turned on
          again. Nothing is deleted.
        </div>
      )}
      <ErrorBox error={save.error} />
      <ErrorBox error={rotate.error} />
      {note && <Note kind="ok">{note}</Note>}
      {k.status === 'enabled' && k.provider === 'aws-kms' && (
        <Field
          label="Rotate to another key (optional)"
          value={nextKeyId}
          hint="A key id, ARN or alias of the same KMS. Leave empty to re-wrap under this key's newest material."
          onInput={(e) => setNextKeyId(e.currentTarget.value)}
        />
      )}
      <div class="audit-actions">
        <Button variant={turningOff ? 'danger' : 'primary'} type="submit" busy={save.busy && !asking}>
          {k.status === 'not_configured' ? 'Set the key' : 'Save key settings'}
        </Button>
        {k.status === 'enabled' && (
          <Button onClick={() => rotate.run()} busy={rotate.busy} disabled={k.pass === 'rotate'}>
            Rotate the key
          </Button>
        )}
      </div>
      <Confirm
        open={asking}
        title="Turn the encryption key off?"
        confirmLabel="Turn the key off"
        busy={save.busy}
        error={save.error}
        onConfirm={() => save.run()}
        onCancel={() => {
          save.reset()
          setAsking(false)
        }}
      >
        <p>
          Every read and write of this workspace's content is refused from this moment: answers, MCP,
          documents, downloads, onboarding and uploads. Nothing is deleted, and turning the key on again
          brings it all back.
        </p>
      </Confirm>
    </form>
  )
}
