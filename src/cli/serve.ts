import { createApp, VERSION } from '../app'
import { baseUrl, type Config } from '../platform/config/config.load'
import type { Db } from '../platform/db/db'
import { logModelSettings } from '../platform/llm/settings'
import { openRuntime } from './runtime'

/** True while the install has no workspace at all. */
function firstStart(db: Db): boolean {
  return db.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM workspaces').get()?.n === 0
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
  app.jobs.scheduler.start()
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
  rt.log.info('ready', { docs: `${baseUrl(config)}/docs`, api: `${baseUrl(config)}/v1` })
  if (firstStart(rt.db)) {
    // Printed for a person, not a log collector: how to get from an empty install to a first workspace.
    process.stderr.write(
      `\nNo workspace yet. Create the first one (its creator becomes its admin):\n\n` +
        `  curl -X POST ${baseUrl(config)}/v1/auth/register -H 'content-type: application/json' \\\n` +
        `    -d '{"email":"you@example.com","password":"a long password","workspace_name":"My team","name":"Your name"}'\n\n` +
        `Then sign in at ${baseUrl(config)}/v1/auth/login, mint an API key (POST /v1/api-keys) and read ${baseUrl(config)}/docs.\n\n`,
    )
  }

  const stop = async (signal: string) => {
    rt.log.info('stopping', { signal })
    await server.stop()
    await app.jobs.scheduler.stop()
    rt.db.$client.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}
