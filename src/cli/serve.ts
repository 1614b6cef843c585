import { createApp, VERSION } from '../app'
import { baseUrl, type Config } from '../platform/config/config.load'
import type { Db } from '../platform/db/db'
import { isLoopback } from '../platform/http/loopback'
import { logModelSettings, logSupportSettings } from '../platform/llm/settings'
import { openRuntime } from './runtime'

/** True while the install has no workspace at all. */
function firstStart(db: Db): boolean {
  return db.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM workspaces').get()?.n === 0
}

/**
 * What an operator exposing this server to a network should know at start-up, one line each.
 * Listening beyond loopback with email disabled: verification and reset links cannot be mailed, so
 * callers from other machines get none and the links are written to this log instead.
 */
export function startupWarnings(config: Config): string[] {
  const out: string[] = []
  if (config.email.transport === 'disabled' && !isLoopback(config.server.host)) {
    out.push(
      `email is disabled while listening on ${config.server.host || 'every address'}: verification and password reset links are written to this log (they are answered only to callers on this machine); set ENGRAM_EMAIL to an smtp:// URL to mail them`,
    )
  }
  return out
}

/** Largest request Bun accepts at all; routes apply their own, smaller limits. */
const SERVER_BODY_CAP = 8 * 1024 * 1024 * 1024

/** `engram serve`: migrate, then listen until SIGINT or SIGTERM. */
export async function serve(config: Config): Promise<void> {
  const rt = openRuntime(config)
  // Leftovers of writes interrupted by a crash are removed before anything new is written.
  const swept = await rt.objects.sweepTemp()
  const app = createApp(rt)
  const server = Bun.serve({
    hostname: config.server.host,
    port: config.server.port,
    fetch: app.handle,
    maxRequestBodySize: SERVER_BODY_CAP,
    idleTimeout: 120,
  })
  rt.log.info('listening', {
    version: VERSION,
    url: `http://${server.hostname}:${server.port}`,
    port: server.port,
    data_dir: rt.dataDir,
    migrations_applied: rt.applied.length,
    storage: rt.objects.driver,
    swept_temp_objects: swept,
  })
  for (const warning of startupWarnings(config)) rt.log.warn(warning)
  app.jobs.scheduler.start()
  app.events.dispatcher.start()
  // The scale test loads this server over loopback, so it needs an address it can reach.
  const host = ['0.0.0.0', '::', ''].includes(config.server.host) ? '127.0.0.1' : config.server.host
  app.listening(`http://${host.includes(':') ? `[${host}]` : host}:${server.port}`)
  // Once serving, not on the first question (the WordNet tables block the loop for about 200 ms).
  // Then bases onboarded before an embeddings server was plugged in (or under another model) get
  // their passages embedded in the background.
  setTimeout(() => {
    app.prepare()
    const bases = app.embedMissing()
    if (bases > 0) rt.log.info('embedding passages in the background', { bases })
  }, 0)
  // Objects a crash left without a row (an upload killed mid-request) go in the background;
  // objects of requests in flight are spared, so serving need not wait for a long listing.
  void app.sweepOrphans().then(
    (r) => rt.log.info('orphan sweep', { removed_objects: r.removed, expired_uploads: r.uploadsExpired }),
    (e) => rt.log.error('orphan sweep failed', { error: (e as Error).message }),
  )
  logModelSettings(config.llm, rt.log)
  logSupportSettings(config.embed, rt.log)
  rt.log.info('ready', {
    console: `${baseUrl(config)}/console/`,
    docs: `${baseUrl(config)}/docs`,
    api: `${baseUrl(config)}/v1`,
  })
  if (firstStart(rt.db)) {
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
    await app.jobs.scheduler.stop()
    await app.events.dispatcher.stop()
    rt.db.$client.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}
