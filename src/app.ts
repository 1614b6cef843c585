import type { App, AppDeps } from './app.types'
import { accountsFeature } from './features/accounts/accounts.feature'
import { allowlistFeature } from './features/allowlist/allowlist.feature'
import { answersFeature } from './features/answers/answers.feature'
import { auditFeature } from './features/audit/audit.feature'
import { billingFeature } from './features/billing/billing.feature'
import { consoleFeature } from './features/console/console.feature'
import { corporaFeature } from './features/corpora/corpora.feature'
import { economicsFeature } from './features/economics/economics.feature'
import { engineFeature } from './features/engine/engine.feature'
import { encodeJobs } from './features/engine/engine.jobs'
import { identityFeature } from './features/identity/identity.feature'
import { ingestFeature } from './features/ingest/ingest.feature'
import { keysFeature } from './features/keys/keys.feature'
import { kmsFeature } from './features/kms/kms.feature'
import { legalFeature } from './features/legal/legal.feature'
import { mcpFeature } from './features/mcp/mcp.feature'
import { membersFeature } from './features/members/members.feature'
import { onboardingFeature } from './features/onboarding/onboarding.feature'
import { plansFeature } from './features/plans/plans.feature'
import { platformInfoFeature } from './features/platform-info/platform-info.feature'
import { scaleFeature } from './features/scale/scale.feature'
import { serviceFeature } from './features/service/service.feature'
import { sourcesFeature } from './features/sources/sources.feature'
import { ssoFeature } from './features/sso/sso.feature'
import { statusFeature } from './features/status/status.feature'
import { usageFeature } from './features/usage/usage.feature'
import { webhooksFeature } from './features/webhooks/webhooks.feature'
import { workspacesFeature } from './features/workspaces/workspaces.feature'
import { type Feature, install, ordered, startAll, stopAll } from './platform/feature/feature'
import { createHttpApp } from './platform/http/http-app'
import { createRuntime, type Runtime } from './platform/runtime/runtime'
import { VERSION } from './version'

export type { App, AppDeps, AppServices, StartOptions } from './app.types'
export { VERSION } from './version'

/** The order routes are mounted in, the spec's (the OpenAPI document follows it), after the service's own. */
const MOUNT_ORDER =
  `console corpora ingest sources onboarding answers economics scale mcp accounts identity members sso allowlist
  kms keys webhooks usage legal plans billing status platform-info workspaces audit engine`.split(/\s+/)

/**
 * Composes the runtime, the features in order and the HTTP app over their routes; pure until `start` runs.
 */
export function createApp(deps: AppDeps): App {
  const rt = createRuntime(deps)
  const f = features(deps, rt)
  return {
    handle: createHttpApp({ ...deps, ...rt.platform, authenticate: f.authenticate, admit: f.admit }, f.routes)
      .handle,
    routes: f.routes,
    openapi: f.docs.openapi,
    jobs: { queue: rt.platform.queue, scheduler: rt.scheduler },
    events: { outbox: rt.platform.events, dispatcher: rt.dispatcher },
    store: rt.platform.store,
    services: f.services,
    async start({ url, jobs = false, events = false } = {}) {
      rt.start({ jobs, events })
      await startAll(f.list, { url: url ?? null, jobs })
    },
    async stop() {
      await stopAll(f.list)
      await rt.stop()
    },
  }
}

/**
 * The features in the order they are built and started. Each is given the platform, its config
 * and, by name, the services it uses, all of features above it: who depends on whom reads here.
 */
function features({ config: c, secret, extraRoutes = [] }: AppDeps, rt: Runtime) {
  const [{ platform: p, mailer }, version, list] = [rt, VERSION, [] as Feature[]]
  /** Appends a feature to the list and hands its service to the features after it. */
  const use = <S>(feature: Feature<S>): S => {
    list.push(feature)
    return feature.service
  }
  const workspaces = use(workspacesFeature(p))
  const legal = use(legalFeature(p, { config: c.legal }))
  const plans = use(plansFeature(p, { config: c, workspaces }))
  use(billingFeature(p, { config: c, plans, legal, workspaces }))
  use(auditFeature(p))
  // Ingest and the engine add their purgers to corpora's deletes; onboarding tells it of builds.
  const corpora = use(corporaFeature(p, { plans }))
  // A key bound to some bases names bases of its workspace.
  const keys = use(keysFeature(p, { corpora, plans, workspaces }))
  const signIn = accountsFeature(p, { config: c, secret, mailer, workspaces, keys })
  const accounts = use(signIn)
  use(membersFeature(p, { config: c, mailer, accounts, workspaces, plans }))
  // Identity reads SSO enforcement through accounts; sso links its members' identities through identity.
  const sso = accounts.ssoPolicy()
  const identity = use(identityFeature(p, { config: c, secret, accounts, workspaces, sso }))
  use(ssoFeature(p, { config: c, secret, accounts, workspaces, identity, plans }))
  const allowlist = use(allowlistFeature(p, { workspaces }))
  use(kmsFeature(p, { config: c.kms, secret, envelope: rt.envelope, corpora, workspaces }))
  const ingest = use(ingestFeature(p, { config: c.ingest, corpora, plans }))
  const engine = use(engineFeature(p, { config: c.engine, embed: c.embed, corpora, dataDir: c.data.dir }))
  const sources = use(sourcesFeature(p, { config: c, secret, corpora, ingest }))
  // GET /jobs/{id} is onboarding's; sources' syncs and the engine's encoding are followed through it too.
  const readable = [sources.readableJobs, encodeJobs]
  const onboarding = use(onboardingFeature(p, { config: c.onboarding, corpora, ingest, engine, readable }))
  const answers = use(answersFeature(p, { llm: c.llm, engineLimits: c.engine, corpora, engine, plans }))
  use(usageFeature(p, { billing: c.billing, accounts, keys, corpora, engine, answers, plans }))
  use(webhooksFeature(p, { config: c.webhooks, secret, version }))
  const mcp = use(mcpFeature(p, { version, maxBodyBytes: c.server.max_body_bytes, corpora, answers }))
  const economics = use(economicsFeature(p, { rates: c.rates, corpora, answers, onboarding, engine }))
  const scale = use(scaleFeature(p, { config: c.scale_test, corpora, answers, economics }))
  use(statusFeature(p, { config: c.status, version, mailer }))
  use(platformInfoFeature({ config: c, version, ingest }))
  use(consoleFeature())
  // The service's own pages describe every route, so they come last here; they are mounted first.
  const routes = [...install(ordered(list, MOUNT_ORDER), rt), ...extraRoutes]
  const service = serviceFeature(p, { version, frozenRemovalDate: c.api.frozen_removal_date, routes })
  const [docs, authenticate, admit] = [use(service), signIn.authenticate, allowlist.admit]
  const services = { mcp, engine, ingest, onboarding, legal, scale }
  return { list, routes: [...(service.routes ?? []), ...routes], authenticate, admit, docs, services }
}
