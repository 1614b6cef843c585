import { createApp, VERSION } from '../app'
import { releaseEmbeddedPages } from '../features/engine/common/index'
import { WorkspacesService } from '../features/workspaces/workspaces.service'
import { baseUrl, type Config } from '../platform/config/config.load'
import { emailMode } from '../platform/email/email'
import { logModelSettings, logSupportSettings } from '../platform/llm/settings'
import { type CliRuntime, openRuntime } from './runtime'

/** True while the install has no workspace at all. */
async function firstStart(rt: Pick<CliRuntime, 'store' | 'clock' | 'random'>): Promise<boolean> {
  return !(await new WorkspacesService(rt.store, rt.clock, rt.random).any())
}

/** One line of what the operator should know at start-up, at the level it deserves. */
export interface StartupNotice {
  level: 'info' | 'warn' | 'error'
  msg: string
}

/**
 * What an operator should know at start-up about who can reach what, one line each: where the
 * links of verification, reset and invitation go, and what a forwarded client address is worth.
 */
export function startupWarnings(config: Config): StartupNotice[] {
  const out: StartupNotice[] = []
  const mode = emailMode(config.email.transport)
  if (mode === 'disabled') {
    out.push({
      level: 'error',
      msg: 'ENGRAM_EMAIL=disabled: verification, password-reset and invitation links are answered to whoever asks for them, so anyone who can reach this server can take over any account, admins included. Set ENGRAM_EMAIL=log (links go to this log) or an smtp:// URL.',
    })
  }
  if (mode === 'log') {
    out.push({
      level: 'info',
      msg: 'email: no mail server (ENGRAM_EMAIL=log): verification, password-reset and invitation links are written to this log for you to pass on; set ENGRAM_EMAIL to an smtp:// URL to mail them',
    })
  }
  if (config.server.trust_proxy) {
    out.push({
      level: 'warn',
      msg: 'ENGRAM_TRUST_PROXY=true believes X-Forwarded-For from any peer: a client that reaches this port without the proxy chooses its own address for rate limits and the audit trail. Set ENGRAM_TRUSTED_PROXIES to the proxy\'s address (or "loopback") instead.',
    })
  }
  if (config.sources.allow_loopback && !config.sources.deny_private_networks) {
    out.push({
      level: 'warn',
      msg: "ENGRAM_SOURCES_ALLOW_LOOPBACK=true: a workspace admin's S3 endpoint may reach loopback and this machine's own addresses (its admin ports, databases, the model server). Leave it off unless every workspace admin is trusted with this machine.",
    })
  }
  return out
}

/** True for a listen address only this machine reaches (127.0.0.0/8, ::1, localhost). */
export function loopbackOnly(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}

/**
 * Without ENGRAM_BASE_URL, emailed and invitation links start with http://localhost:<port>, which
 * opens only on this machine: fine while the server listens on loopback alone, wrong once others
 * can reach it. Links are never made from a request's Host header (a caller could choose it), so
 * the operator has to say the address; this line says how.
 */
export function baseUrlWarning(config: Config): StartupNotice | null {
  if (config.server.base_url || loopbackOnly(config.server.host)) return null
  return {
    level: 'warn',
    msg: `ENGRAM_BASE_URL is not set: links in emails and invitations start with ${baseUrl(config)}, which only this machine opens, while the server listens on ${config.server.host || 'every address'}. Set ENGRAM_BASE_URL to the address people use (ENGRAM_BASE_URL=https://engram.example.com, or base_url under [server] in the config file).`,
  }
}

/**
 * Why the server could not listen, in one line that says what to do: a port already taken names
 * --port and ENGRAM_PORT (Bun's own words, "Failed to start server. Is port 8080 in use?", say
 * neither). Other failures pass through as they are.
 */
export function listenError(e: unknown, server: Pick<Config['server'], 'host' | 'port'>): unknown {
  const code = (e as { code?: string } | null)?.code
  const { port } = server
  const where = `${server.host || '0.0.0.0'}:${port}`
  const next = port === 65535 ? 8080 : port + 1
  if (code === 'EADDRINUSE') {
    return Object.assign(
      new Error(
        `port ${port} is already in use (${where}): stop what listens there, or start on another port with --port ${next} or ENGRAM_PORT=${next}.`,
      ),
      { exitCode: 1 },
    )
  }
  if (code === 'EACCES') {
    return Object.assign(
      new Error(
        `port ${port} needs privileges this process does not have (${where}): start on a port above 1023 with --port 8080 or ENGRAM_PORT=8080.`,
      ),
      { exitCode: 1 },
    )
  }
  return e
}

/** What start-up settles once it is done: its garbage collected, the executable's pages it read given back. */
export interface StartupSettle {
  collect: () => void
  release: () => number
}

/**
 * Start-up's garbage (the migrations' text, the routes' and the OpenAPI document's making, the
 * features' start hooks) is collected once as start-up ends, and the
 * executable's embedded pages it read (the modules' code, ...) are given back (embedded-pages.ts):
 * otherwise an idle server holds them until the collector's own timer, 8-10 MB for a second or so.
 */
export function settleStartup(
  settle: StartupSettle = { collect: () => Bun.gc(true), release: releaseEmbeddedPages },
): void {
  settle.collect()
  settle.release()
}

/** Largest request Bun accepts at all; routes apply their own, smaller limits. */
const SERVER_BODY_CAP = 8 * 1024 * 1024 * 1024

/** `engram serve`: migrate, then listen until SIGINT or SIGTERM. */
export async function serve(config: Config, settle?: StartupSettle): Promise<void> {
  const rt = await openRuntime(config)
  // Leftovers of writes interrupted by a crash are removed before anything new is written.
  const swept = await rt.objects.sweepTemp()
  const app = createApp(rt)
  let server: ReturnType<typeof Bun.serve>
  try {
    server = Bun.serve({
      hostname: config.server.host,
      port: config.server.port,
      fetch: app.handle,
      maxRequestBodySize: SERVER_BODY_CAP,
      idleTimeout: 120,
    })
  } catch (e) {
    throw listenError(e, config.server)
  }
  rt.log.info('listening', {
    version: VERSION,
    url: `http://${server.hostname}:${server.port}`,
    port: server.port,
    data_dir: rt.dataDir,
    migrations_applied: rt.applied.length,
    storage: rt.objects.driver,
    jobs: config.jobs.run,
    swept_temp_objects: swept,
  })
  for (const notice of startupWarnings(config)) rt.log[notice.level](notice.msg)
  const noLinkBase = baseUrlWarning(config)
  if (noLinkBase) rt.log[noLinkBase.level](noLinkBase.msg)
  // The scale test loads this server over loopback, so it needs an address it can reach. Start-up
  // work (the engine's preparation, the orphan sweep, embedding of bases without vectors) runs in the
  // background from the features' own start hooks.
  const host = ['0.0.0.0', '::', ''].includes(config.server.host) ? '127.0.0.1' : config.server.host
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`
  // A replica that only answers requests leaves jobs and events to the others (jobs.run).
  await app.start({ url, jobs: config.jobs.run, events: config.jobs.run })
  settleStartup(settle)
  logModelSettings(config.llm, rt.log)
  logSupportSettings(config.embed, rt.log)
  rt.log.info('ready', {
    console: `${baseUrl(config)}/console/`,
    docs: `${baseUrl(config)}/docs`,
    api: `${baseUrl(config)}/v1`,
  })
  if (await firstStart(rt)) {
    // Printed for a person, not a log collector: how to get from an empty install to a first workspace
    // and an API key, as commands that work when pasted (sign-in is the OAuth2 password form, not
    // JSON). The port is the one listened on, so `--port 0` prints a usable address too.
    const url = config.server.base_url ? baseUrl(config) : `http://localhost:${server.port}`
    process.stderr.write(
      `\nNo workspace yet. Open the console to create the first one (its creator becomes its admin):\n\n` +
        `  ${url}/console/\n\n` +
        `Or from a shell:\n\n` +
        `  curl -X POST ${url}/v1/auth/register -H 'content-type: application/json' \\\n` +
        `    -d '{"email":"you@example.com","password":"a long password","workspace_name":"My team","name":"Your name"}'\n\n` +
        `Sign in later with the password form; either answer's access_token is a session:\n\n` +
        `  curl -X POST ${url}/v1/auth/login \\\n` +
        `    --data-urlencode 'username=you@example.com' --data-urlencode 'password=a long password'\n\n` +
        `Mint an API key for engram push and agents (then export ENGRAM_API_KEY=ek_...):\n\n` +
        `  curl -X POST ${url}/v1/api-keys -H 'authorization: Bearer <access_token>' \\\n` +
        `    -H 'content-type: application/json' -d '{"name":"my laptop","scopes":["ingest","query"]}'\n\n` +
        `The API reference: ${url}/docs\n\n`,
    )
  }

  const stop = async (signal: string) => {
    rt.log.info('stopping', { signal })
    await server.stop()
    await app.stop()
    await rt.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}
