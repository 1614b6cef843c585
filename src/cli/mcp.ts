import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createApp, VERSION } from '../app'
import { remoteBackend } from '../features/mcp/lib/remote'
import { createMcpServer } from '../features/mcp/lib/server'
import { localBackend, type McpBackend } from '../features/mcp/lib/tools'
import { WorkspacesService } from '../features/workspaces/workspaces.service'
import type { Principal } from '../platform/auth/principal'
import { createLogger, type Logger } from '../platform/log/log'
import { parseFlags } from './args'
import { CliError } from './cli-error'
import { configFromProcess, openRuntime } from './runtime'

export const MCP_USAGE = `Usage: engram mcp [--data DIR] [--workspace ID|NAME]
       engram mcp --url URL [--key KEY]

Serves Engram's tools (list_bases, query_base, list_documents, read_document) to a desktop agent
over stdio (MCP). Stdout carries the protocol; logs go to stderr.

Local mode (default): opens the data directory directly, no server needed.
  --data DIR            Data directory (default: ENGRAM_DATA_DIR or ./data); must hold engram.db
  --workspace ID|NAME   Workspace to serve; optional when the data dir holds only one

Remote mode: forwards every tool call to a running Engram's REST routes.
  --url URL             Server URL, e.g. https://engram.example.com
  --key KEY             API key (ek_...); better passed as ENGRAM_API_KEY so it stays out of
                        process listings. query_base and read_document need the query scope.`

interface McpArgs {
  data?: string
  workspace?: string
  url?: string
  key?: string
}

/** `engram mcp` flags; it takes no positional argument. */
const MCP_FLAGS = {
  options: {
    data: { type: 'string' },
    workspace: { type: 'string' },
    url: { type: 'string' },
    key: { type: 'string' },
  },
} as const

/** Parses `engram mcp` arguments. */
export function parseMcpArgs(args: string[]): McpArgs | 'help' {
  // Help is printed whatever else the line holds, as for `engram push --help`.
  if (args.includes('--help') || args.includes('-h')) return 'help'
  const o: McpArgs = parseFlags(args, MCP_FLAGS, MCP_USAGE, 2).values
  if (o.url && (o.data || o.workspace)) {
    throw new CliError(`--url (remote mode) does not go with --data or --workspace\n\n${MCP_USAGE}`, 2)
  }
  return o
}

/**
 * `engram mcp`: the tools over stdio, against a local data dir or a remote Engram. Resolves when
 * the client closes stdin. `env` is the process environment (ENGRAM_* configuration, ENGRAM_API_KEY).
 */
export async function mcpCommand(args: string[], env: Record<string, string | undefined>): Promise<void> {
  const parsed = parseMcpArgs(args)
  if (parsed === 'help') return void process.stdout.write(`${MCP_USAGE}\n`)
  // From here stdout is the protocol: anything printed there by mistake would corrupt it.
  console.log = console.error
  console.info = console.error
  const configEnv = parsed.data ? { ...env, ENGRAM_DATA_DIR: parsed.data } : env
  const config = configFromProcess(configEnv)
  const log = createLogger(config.server.log_level, (l) => process.stderr.write(l))
  let close = async () => {}
  let backend: McpBackend
  if (parsed.url) {
    const key = parsed.key ?? env.ENGRAM_API_KEY
    if (!key) throw new CliError(`Remote mode needs an API key: --key or ENGRAM_API_KEY\n\n${MCP_USAGE}`, 2)
    backend = remoteBackend({ url: parsed.url, key })
    log.info('engram mcp ready', { mode: 'remote', url: parsed.url })
  } else {
    const dataDir = resolve(config.data.dir)
    if (!existsSync(join(dataDir, 'engram.db'))) {
      throw new CliError(`No Engram database in ${dataDir}: pass --data DIR or start \`engram serve\` once.`)
    }
    const rt = await openRuntime(config)
    const workspace = await pickWorkspace(
      new WorkspacesService(rt.store, rt.clock, rt.random),
      parsed.workspace,
      dataDir,
    )
    // No scheduler, no listener: only the read and answer paths of the services run here. The
    // event dispatcher runs, so the questions asked here are counted in usage as they are answered.
    const app = createApp({ ...rt, log })
    await app.start({ events: true })
    // Whoever can read the data dir can read every base of it; the workspace only narrows the view.
    const principal: Principal = {
      kind: 'session',
      workspaceId: workspace.id,
      userId: null,
      role: 'admin',
      scopes: null,
      keyId: null,
      corpusIds: null,
    }
    backend = localBackend(app.services.mcp, principal)
    close = async () => {
      await app.stop()
      await rt.close()
    }
    log.info('engram mcp ready', { mode: 'local', data_dir: dataDir, workspace_id: workspace.id })
  }
  await serveStdio(backend, log, close)
}

/** The workspace to serve: the one named, or the only one. */
async function pickWorkspace(
  workspaces: Pick<WorkspacesService, 'list'>,
  wanted: string | undefined,
  dataDir: string,
): Promise<{ id: string; name: string }> {
  const all = await workspaces.list()
  if (wanted) {
    const found = all.filter((w) => w.id === wanted || w.name === wanted)
    if (found.length === 1) return found[0]!
    const names = all.map((w) => `${w.id} (${w.name})`).join(', ') || 'none'
    throw new CliError(
      found.length === 0
        ? `No workspace ${JSON.stringify(wanted)} in ${dataDir}. Workspaces: ${names}.`
        : `Several workspaces are named ${JSON.stringify(wanted)}; pass the id. Workspaces: ${names}.`,
      2,
    )
  }
  if (all.length === 1) return all[0]!
  if (all.length === 0) throw new CliError(`${dataDir} has no workspace yet: sign up first.`)
  const names = all.map((w) => `${w.id} (${w.name})`).join(', ')
  throw new CliError(`${dataDir} holds several workspaces; pick one with --workspace: ${names}.`, 2)
}

/** Connects the tools to stdin and stdout and waits for the client to hang up. */
async function serveStdio(backend: McpBackend, log: Logger, close: () => Promise<void>): Promise<void> {
  const calls = trackCalls(backend)
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
  const server = await createMcpServer(calls.backend, {
    version: VERSION,
    onUnexpected: (e) =>
      log.error('mcp tool failed', { error: e instanceof Error ? (e.stack ?? e.message) : e }),
  })
  const transport = new StdioServerTransport()
  let resolveDone: () => void = () => {}
  const done = new Promise<void>((r) => {
    resolveDone = r
  })
  let closing = false
  const stop = async (why: string, finishCalls: boolean) => {
    if (closing) return
    closing = true
    log.info('engram mcp stopping', { reason: why })
    // A client that writes its requests and closes stdin (a pipe) still gets every answer.
    if (finishCalls) {
      await calls.idle(60_000)
      await new Promise((r) => setTimeout(r, 0))
    }
    await server.close().catch(() => {})
    await close()
    await new Promise<void>((r) => process.stdout.write('', () => r()))
    resolveDone()
  }
  await server.connect(transport)
  // Set after connect: the server takes over the transport's callbacks and reports through its own.
  server.onerror = (e) => log.warn('mcp transport error', { error: e.message })
  process.stdin.on('end', () => void stop('stdin closed', true))
  process.once('SIGINT', () => void stop('SIGINT', false))
  process.once('SIGTERM', () => void stop('SIGTERM', false))
  await done
}

/** Wraps a backend to know when no tool call is running. */
function trackCalls(inner: McpBackend): { backend: McpBackend; idle(maxMs: number): Promise<void> } {
  let running = 0
  let waiters: (() => void)[] = []
  const track =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      running++
      try {
        return await fn(...a)
      } finally {
        running--
        if (running === 0) for (const w of waiters.splice(0)) w()
      }
    }
  const backend: McpBackend = {
    bases: track(() => inner.bases()),
    query: track((id, req) => inner.query(id, req)),
    documents: track((id, req) => inner.documents(id, req)),
    text: track((id, doc, req) => inner.text(id, doc, req)),
  }
  const idle = (maxMs: number) =>
    running === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            waiters = waiters.filter((w) => w !== done)
            resolve()
          }, maxMs)
          const done = () => {
            clearTimeout(timer)
            resolve()
          }
          waiters.push(done)
        })
  return { backend, idle }
}
