/**
 * MCP: the hosted MCP server's address and client configurations ready to paste (hosted over HTTP,
 * and `engram mcp` over stdio) and the MCP Inspector's commands to check it, for a chosen base and
 * key (components/mcp-configs.tsx). A key's secret is shown only when it is created, so a
 * configuration carries the real secret only for a key created in this tab; otherwise it says
 * `ek_...` and tells the reader to put their saved key there.
 */
import { useEffect, useState } from 'preact/hooks'
import { listKeys } from '../api/admin'
import { getMcpMeta, listBases } from '../api/bases'
import { me } from '../api/session'
import type { ApiKey, Corpus } from '../api/types'
import { Configs } from '../components/mcp-configs'
import { Async, Empty, ErrorBox, Loading, Note, PageHeader } from '../components/ui'
import { freshKeys } from '../lib/fresh-keys'
import { KEY_PLACEHOLDER } from '../lib/mcp-commands'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'

/** A key that still works (not revoked, not expired). */
function usable(k: ApiKey): boolean {
  return !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= Date.now())
}

/** The MCP page. */
export function Mcp(_props: { id?: string }) {
  const admin = me.value?.role === 'admin'
  const bases = useLoad(() => listBases(), [])
  // Only admins may list keys; a member is told to ask for one.
  const keys = useLoad(() => (admin ? listKeys() : Promise.resolve([])), [admin])
  return (
    <>
      <PageHeader
        title="MCP"
        lead="Connect an AI agent (Claude Desktop, Claude Code, Cursor, any MCP client) to this workspace's document bases."
      />
      <Async load={bases}>
        {(list) =>
          list.length === 0 ? (
            <Empty title="No document bases yet">
              <p>
                Agents ask questions of a base. <a href="/console/bases">Create a base</a> and upload
                documents first; its MCP configuration then shows here.
              </p>
            </Empty>
          ) : (
            <Configure
              bases={list}
              keys={(keys.data ?? []).filter(usable)}
              keysError={keys.error}
              admin={admin}
            />
          )
        }
      </Async>
    </>
  )
}

function Configure(props: { bases: Corpus[]; keys: ApiKey[]; keysError?: Error; admin: boolean }) {
  const fresh = freshKeys.value
  const [baseId, setBaseId] = useState(props.bases[0]!.id)
  const [keyId, setKeyId] = useState('')
  const [picked, setPicked] = useState(false)
  // Until the reader picks one, suggest a key: one created in this tab first, then one that may query.
  useEffect(() => {
    if (picked) return
    const pick =
      props.keys.find((k) => fresh[k.id]) ??
      props.keys.find((k) => k.scopes.includes('query')) ??
      props.keys[0]
    setKeyId(pick?.id ?? '')
  }, [props.keys])
  const key = props.keys.find((k) => k.id === keyId)
  const secret = (key && fresh[key.id]) ?? KEY_PLACEHOLDER
  const meta = useLoad((signal) => getMcpMeta(baseId, signal), [baseId])
  return (
    <div class="stack">
      <div class="card grid-2">
        <div class="field">
          <label for="mcp-base">Base</label>
          <select id="mcp-base" value={baseId} onChange={(e) => setBaseId(e.currentTarget.value)}>
            {props.bases.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name} ({b.status}, {b.n_documents} {b.n_documents === 1 ? 'document' : 'documents'})
              </option>
            ))}
          </select>
        </div>
        {props.admin ? (
          <div class="field">
            <label for="mcp-key">API key</label>
            <select
              id="mcp-key"
              value={keyId}
              onChange={(e) => {
                setPicked(true)
                setKeyId(e.currentTarget.value)
              }}
            >
              <option value="">None: show the placeholder {KEY_PLACEHOLDER}</option>
              {props.keys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.prefix}…, {k.scopes.join(' ')}){fresh[k.id] ? ' — created in this tab' : ''}
                </option>
              ))}
            </select>
            <ErrorBox error={props.keysError} />
          </div>
        ) : (
          <p class="hint">
            Agents authenticate with an API key of the workspace, and only admins can create them. Ask an
            admin of {me.value?.workspace_name} for a key with the <strong>query</strong> scope and put it
            where the configurations below show <code>{KEY_PLACEHOLDER}</code>, in its place.
          </p>
        )}
      </div>
      <KeyNote
        admin={props.admin}
        keyName={key?.name}
        hasSecret={secret !== KEY_PLACEHOLDER}
        noKeys={props.keys.length === 0}
      />
      {key && !key.scopes.includes('query') && (
        <Note kind="warn">
          The key {key.name} does not hold the <strong>query</strong> scope: an agent using it can list bases
          and documents but cannot ask questions (query_base) or read documents (read_document).
        </Note>
      )}
      {meta.data === undefined && meta.loading ? (
        <Loading />
      ) : meta.data ? (
        <Configs meta={meta.data} secret={secret} />
      ) : (
        <ErrorBox error={meta.error} />
      )}
    </div>
  )
}

function KeyNote(props: { admin: boolean; keyName?: string; hasSecret: boolean; noKeys: boolean }) {
  if (!props.admin) return null
  if (props.hasSecret)
    return (
      <Note kind="warn">
        These configurations contain the secret of <strong>{props.keyName}</strong>, created in this tab.
        Treat them like a password. Reloading the page forgets the secret: Engram cannot show it again.
      </Note>
    )
  return (
    <Note>
      {props.noKeys ? 'The workspace has no usable API key yet. ' : ''}A key's secret is shown only once, when
      it is created, so the configurations below say <code>{KEY_PLACEHOLDER}</code>: put your saved key there.
      Lost it? <a href="/console/keys">Create a new key</a> (with the query scope), then come back to this
      page without reloading it and the configurations carry the new secret.
    </Note>
  )
}
