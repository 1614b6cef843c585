/**
 * The MCP page's configurations for one base and key: the hosted server's address and the base id,
 * then each client's configuration ready to paste (hosted over HTTP, Claude Code's command, `engram
 * mcp` over stdio, `engram mcp --data` on the server's machine) and the MCP Inspector's commands to
 * check it by hand. `secret` is the key's secret when this tab created it, else the placeholder.
 */
import type { ComponentChildren } from 'preact'
import { me } from '../api/session'
import type { McpMeta } from '../api/types'
import { inspectorAskCommand, inspectorListCommand } from '../lib/mcp-commands'
import { CopyButton } from './copy-button'
import { Note } from './ui'

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

/** The hosted server's address, the base id, and each client's configuration with `secret` in it. */
export function Configs({ meta, secret }: { meta: McpMeta; secret: string }) {
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
  const inspector = [
    inspectorListCommand(hosted, secret),
    inspectorAskCommand(hosted, secret, meta.id, 'What is this base about?'),
  ].join('\n\n')
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
      <Snippet id="cfg-inspector" title="Check it by hand: the MCP Inspector" text={inspector}>
        <p class="hint">
          The MCP Inspector (Node.js 22.19 or later) connects as an agent would: the first command lists the
          tools, the second asks this base a question through query_base. Run one line at a time.
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
