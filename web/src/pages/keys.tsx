/**
 * API keys (admin): the workspace's keys with their scopes, bases, last use and state; create one
 * (its secret shown once, with a copy button), for every base or only some; revoke one (it stays
 * listed, marked revoked).
 */

import { useState } from 'preact/hooks'
import { createKey, listKeys, revokeKey } from '../api/admin'
import { listBases } from '../api/bases'
import type { ApiKey, ApiKeyCreated, Corpus, Scope } from '../api/types'
import { CheckList } from '../components/check-list'
import { CopyButton } from '../components/copy-button'
import { BaseChoice, type KeyReach, reachText } from '../components/key-bases'
import { TableScroll } from '../components/table-scroll'
import { Async, Button, Confirm, Dialog, Empty, ErrorBox, Field, PageHeader, Time } from '../components/ui'
import { useAction } from '../lib/action'
import { rememberFreshKey } from '../lib/fresh-keys'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'

const SCOPES: { scope: Scope; label: string; hint: string }[] = [
  { scope: 'query', label: 'Query', hint: 'ask questions, read documents, MCP tools' },
  { scope: 'ingest', label: 'Ingest', hint: 'create bases, upload and push documents, onboard' },
  { scope: 'admin', label: 'Admin', hint: 'manage keys, members and usage' },
]

/** The API keys page. */
export function Keys(_props: { id?: string }) {
  const keys = useLoad(() => listKeys(), [])
  const bases = useLoad((signal) => listBases(signal), [])
  const known = bases.data ?? []
  const [created, setCreated] = useState<ApiKeyCreated | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  return (
    <>
      <PageHeader
        title="API keys"
        lead="Keys let scripts, agents and the MCP server call Engram for this workspace. Each key holds only the scopes you give it."
      />
      <CreateKey
        bases={known}
        onCreated={(k) => {
          rememberFreshKey(k.id, k.key)
          setCreated(k)
          keys.reload()
        }}
      />
      <h2>Keys</h2>
      <Async load={keys}>
        {(list) =>
          list.length === 0 ? (
            <Empty title="No API keys yet">
              <p>Create one above to call the API or connect an agent over MCP.</p>
            </Empty>
          ) : (
            <KeyTable keys={list} bases={known} onRevoke={setRevoking} />
          )
        }
      </Async>
      <SecretDialog created={created} bases={known} onClose={() => setCreated(null)} />
      <RevokeKey
        target={revoking}
        onDone={() => {
          setRevoking(null)
          keys.reload()
        }}
        onCancel={() => setRevoking(null)}
      />
    </>
  )
}

/** The end of the chosen day in the reader's time zone: a key "expiring on" a day works all that day. */
function endOfDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(y, m - 1, d, 23, 59, 59, 999).toISOString()
}

function CreateKey({ bases, onCreated }: { bases: Corpus[]; onCreated: (k: ApiKeyCreated) => void }) {
  const [name, setName] = useState('')
  const [scopes, setScopes] = useState<Scope[]>(['query'])
  const [expiry, setExpiry] = useState('')
  const [reach, setReach] = useState<KeyReach>(null)
  const create = useAction(async (e: Event) => {
    e.preventDefault()
    const expires_at = expiry ? endOfDay(expiry) : null
    const k = await createKey({ name, scopes, expires_at, corpus_ids: reach })
    setName('')
    setExpiry('')
    setReach(null)
    onCreated(k)
  })
  const noBase = reach !== null && reach.length === 0
  return (
    <form class="card stack key-form" onSubmit={create.run} aria-labelledby="create-key-title">
      <h2 id="create-key-title" class="card-title">
        Create a key
      </h2>
      <div class="grid-2">
        <Field
          label="Key name"
          required
          maxLength={100}
          value={name}
          hint="Say what will use it, e.g. “nightly sync” or “Claude Desktop”."
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <Field
          label="Expires on (optional)"
          type="date"
          value={expiry}
          hint="The key stops working after this day ends. Leave empty for a key that does not expire."
          onInput={(e) => setExpiry(e.currentTarget.value)}
        />
      </div>
      <CheckList
        legend="Scopes (at least one)"
        options={SCOPES.map((s) => ({ value: s.scope, label: <strong>{s.label}</strong>, hint: s.hint }))}
        value={scopes}
        onChange={setScopes}
      />
      <BaseChoice bases={bases} value={reach} onChange={setReach} />
      {(scopes.length === 0 || noBase) && (
        <p class="hint" role="status">
          {scopes.length === 0 ? 'Choose at least one scope.' : 'Choose at least one base.'}
        </p>
      )}
      <ErrorBox error={create.error} />
      <div>
        <Button variant="primary" type="submit" busy={create.busy} disabled={scopes.length === 0 || noBase}>
          Create key
        </Button>
      </div>
    </form>
  )
}

/** Active, revoked or expired, as a badge. */
function KeyState({ k }: { k: ApiKey }) {
  if (k.revoked_at) return <span class="badge badge-error">Revoked</span>
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now())
    return <span class="badge badge-warn">Expired</span>
  return <span class="badge badge-ok">Active</span>
}

function KeyTable(props: { keys: ApiKey[]; bases: Corpus[]; onRevoke: (k: ApiKey) => void }) {
  const { keys, bases, onRevoke } = props
  return (
    <TableScroll label="API keys">
      <table>
        <caption class="visually-hidden">API keys of the workspace, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Bases</th>
            <th scope="col">State</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} class={k.revoked_at ? 'revoked' : undefined}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{k.scopes.join(', ')}</td>
              <td>{reachText(k.corpus_ids, bases)}</td>
              <td>
                <KeyState k={k} />
                {k.revoked_at && (
                  <div class="muted small">
                    <Time iso={k.revoked_at} />
                  </div>
                )}
              </td>
              <td>
                <Time iso={k.last_used_at} />
              </td>
              <td>{k.expires_at ? <Time iso={k.expires_at} /> : <span class="muted">never</span>}</td>
              <td>
                <Time iso={k.created_at} />
              </td>
              <td>
                {!k.revoked_at && (
                  <button
                    type="button"
                    class="btn btn-plain btn-small"
                    aria-label={`Revoke ${k.name}`}
                    onClick={() => onRevoke(k)}
                  >
                    Revoke
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

/** The one time the secret is shown: a warning, the secret, a copy button. */
function SecretDialog(props: { created: ApiKeyCreated | null; bases: Corpus[]; onClose: () => void }) {
  const { created, bases, onClose } = props
  return (
    <Dialog open={created !== null} title="Your new API key" onClose={onClose}>
      {created && (
        <div class="stack">
          <div class="alert alert-warn" role="note">
            <strong>Copy it now: you will not see this again.</strong> Engram keeps only a hash of the key, so
            nobody can show it to you later. If you lose it, revoke it and create another.
          </div>
          <div class="field">
            <label for="new-key-secret">Secret of “{created.name}”</label>
            <input
              id="new-key-secret"
              class="secret"
              readOnly
              value={created.key}
              onFocus={(e) => e.currentTarget.select()}
            />
          </div>
          <p class="hint">
            Scopes: {created.scopes.join(', ')}. Bases: {reachText(created.corpus_ids, bases)}.{' '}
            {created.expires_at ? (
              <>
                Expires <Time iso={created.expires_at} />.
              </>
            ) : (
              'Does not expire.'
            )}{' '}
            Send it as <code>Authorization: Bearer {created.prefix}…</code>.
          </p>
          <div class="dialog-actions">
            <CopyButton text={created.key} label="Copy the key" />
            <Button variant="primary" onClick={onClose}>
              I have copied it
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  )
}

function RevokeKey(props: { target: ApiKey | null; onDone: () => void; onCancel: () => void }) {
  const k = props.target
  const revoke = useAction(async (key: ApiKey) => {
    await revokeKey(key.id)
    props.onDone()
  })
  return (
    <Confirm
      open={k !== null}
      title={k ? `Revoke the key “${k.name}”?` : 'Revoke the key?'}
      confirmLabel="Revoke key"
      busy={revoke.busy}
      error={revoke.error}
      onConfirm={() => k && revoke.run(k)}
      onCancel={() => {
        revoke.reset()
        props.onCancel()
      }}
    >
      {k && (
        <p>
          Anything using <strong>{k.name}</strong> (<code>{k.prefix}…</code>) is refused from its next
          request. The key stays in the list, marked revoked. This cannot be undone.
        </p>
      )}
    </Confirm>
  )
}
