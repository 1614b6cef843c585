/**
 * MCP: the hosted MCP server's address and client configurations ready to paste (hosted over HTTP,
 * and `engram mcp` over stdio), for a chosen base and key. A key's secret is shown only when it is
 * created, so a configuration carries the real secret only for a key created in this tab; otherwise
 * it says `ek_...` and tells the reader to put their saved key there.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { listKeys } from '../api/admin'
import { getMcpMeta, listBases } from '../api/bases'
import { me } from '../api/session'
import type { ApiKey, Corpus, McpMeta } from '../api/types'
import { CopyButton } from '../components/copy-button'
import { Async, Empty, ErrorBox, Loading, Note, PageHeader } from '../components/ui'
import { freshKeys } from '../lib/fresh-keys'
import { useLoad } from '../lib/use-load'
import '../styles/admin.css'

const PLACEHOLDER = 'ek_...'

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
  const secret = (key && fresh[key.id]) ?? PLACEHOLDER
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
              <option value="">None: show the placeholder {PLACEHOLDER}</option>
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
            where the configurations below show <code>{PLACEHOLDER}</code>, in its place.
          </p>
        )}
      </div>
      <KeyNote
        admin={props.admin}
        keyName={key?.name}
        hasSecret={secret !== PLACEHOLDER}
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
      it is created, so the configurations below say <code>{PLACEHOLDER}</code>: put your saved key there.
      Lost it? <a href="/console/keys">Create a new key</a> (with the query scope), then come back to this
      page without reloading it and the configurations carry the new secret.
    </Note>
  )
}

/** A block of text to paste, with its copy button. */
function Snippet({
  id,
  title,
  text,
  children,
}: {
  id: string
  title: string
  text: string
  children?: ComponentChildren
}) {
  return (
    <section class="snippet" aria-labelledby={`${id}-title`}>
      <div class="snippet-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <CopyButton text={text} label={`Copy: ${title}`} small />
      </div>
      {children}
      <pre id={id}>
        <code>{text}</code>
      </pre>
    </section>
  )
}

function Configs({ meta, secret }: { meta: McpMeta; secret: string }) {
  const origin = location.origin
  const hosted = new URL(meta.endpoints.mcp, origin).href
  const auth = `Bearer ${secret}`
  const hostedJson = JSON.stringify(
    { mcpServers: { engram: { type: 'http', url: hosted, headers: { Authorization: auth } } } },
    null,
    2,
  )
  const claudeCode = `claude mcp add --transport http engram ${hosted} --header "Authorization: ${auth}"`
  const stdioJson = JSON.stringify(
    {
      mcpServers: {
        engram: { command: 'engram', args: ['mcp', '--url', origin], env: { ENGRAM_API_KEY: secret } },
      },
    },
    null,
    2,
  )
  const local = `engram mcp --data /path/to/engram/data --workspace ${me.value?.workspace_id ?? 'WORKSPACE_ID'}`
  const prompt = `Use the Engram tool query_base with base_id "${meta.id}" to answer from the "${meta.name}" documents.`
  return (
    <div class="stack">
      {meta.status !== 'ready' && (
        <Note kind="warn">
          {meta.name} is not ready ({meta.status}): an agent can list its documents, but questions are refused
          until it is onboarded.
        </Note>
      )}
      <div class="card stack">
        <h2 class="card-title">Hosted MCP server</h2>
        <div class="field">
          <label for="mcp-address">Server address (Streamable HTTP)</label>
          <div class="row">
            <input
              id="mcp-address"
              class="grow"
              readOnly
              value={hosted}
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton text={hosted} label="Copy the address" />
          </div>
          <p class="hint">
            One server for every base of the workspace; the API key chooses the workspace and its scopes.
            Tools: list_bases, list_documents, query_base and read_document (the last two need the query
            scope).
          </p>
        </div>
        <div class="field">
          <label for="mcp-base-id">Base id (the tools' base_id)</label>
          <div class="row">
            <input
              id="mcp-base-id"
              class="grow"
              readOnly
              value={meta.id}
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton text={meta.id} label="Copy the base id" />
          </div>
          <p class="hint">
            {meta.name}: {meta.documents_ready} of {meta.n_documents} documents ready. Agents find it with
            list_bases; to point one at it, say so in your prompt: “{prompt}”
          </p>
        </div>
      </div>
      <h2>Client configurations</h2>
      <Snippet id="cfg-hosted" title="Hosted, JSON (mcpServers)" text={hostedJson}>
        <p class="hint">
          For clients that speak MCP over HTTP and read an <code>mcpServers</code> file (Claude Code's{' '}
          <code>.mcp.json</code>, Cursor's <code>mcp.json</code> and others). The key goes in the
          Authorization header of every request.
        </p>
      </Snippet>
      <Snippet id="cfg-claude-code" title="Hosted, Claude Code command" text={claudeCode} />
      <Snippet id="cfg-stdio" title="Over stdio: engram mcp --url" text={stdioJson}>
        <p class="hint">
          For clients that start a local command (Claude Desktop's <code>claude_desktop_config.json</code>,
          among others). <code>engram mcp</code> runs on the agent's machine (the Engram executable must be on
          its PATH) and forwards each tool call to this server; the key stays in the environment, out of
          process listings.
        </p>
      </Snippet>
      <Snippet id="cfg-local" title="On the server's machine: engram mcp --data" text={local}>
        <p class="hint">
          Opens the data directory directly: no key and no running server needed, every base of the workspace
          served. Anyone who can read the data directory can read everything in it; replace the path with this
          server's data directory (<code>ENGRAM_DATA_DIR</code>).
        </p>
      </Snippet>
    </div>
  )
}
