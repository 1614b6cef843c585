import { Type } from '@sinclair/typebox'
import { fail } from '../../platform/errors/errors'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { docsViewer } from './service.assets'
import { OpenApiDocument, ReadyResp, RootResp, VersionResp } from './service.schemas'

/** What the service routes need: the version, the deprecation schedule and the OpenAPI document. */
export interface ServiceRouteDeps {
  version: string
  frozenRemovalDate: string | null
  openapi: () => Record<string, unknown>
  /** Resolves once the database has answered a trivial statement. */
  ready: () => Promise<void>
}

/** How long `GET /ready` waits for the database before it answers 503. */
const READY_WAIT_MS = 2_000

/** The database answered within READY_WAIT_MS, else 503 with a delay to retry after. */
async function ready(probe: () => Promise<void>): Promise<{ status: 'ready' }> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), READY_WAIT_MS)
  })
  const answered = await Promise.race([probe().then(() => 'ok' as const), late])
    .catch(() => 'failed' as const)
    .finally(() => clearTimeout(timer))
  if (answered !== 'ok')
    throw fail('service_unavailable', 'The database does not answer.', undefined, { 'retry-after': '2' })
  return { status: 'ready' }
}

/** The viewer's files have content-hashed names, so a browser keeps them without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * `GET /`, `GET /v1`, `/openapi.json` and `/docs` (spec, Service and versions); the last two at
 * both mounts, as the spec gives every path. `/docs/assets/...` serves the reference's viewer.
 * `GET /ready` tells a load balancer whether the server can serve (its database answers); `GET /`
 * answers without reading the database, so it says only that the process listens.
 */
export function serviceRoutes(deps: ServiceRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/',
      mount: 'unversioned',
      auth: 'none',
      summary: 'Service identity and the API versions served',
      tags: ['service'],
      response: RootResp,
      // A browser (it asks for HTML first) is sent to the console; API clients get the JSON.
      handler: ({ request }) =>
        /^\s*text\/html/.test(request.headers.get('accept') ?? '')
          ? new Response(null, { status: 302, headers: { location: '/console/', vary: 'accept' } })
          : { service: 'engram', version: deps.version, api_versions: ['1'], docs: '/docs' },
    }),
    defineRoute({
      method: 'GET',
      path: '/ready',
      mount: 'unversioned',
      auth: 'none',
      summary:
        'Whether this server can serve now: 200 once its database answers, else 503 (for load balancers)',
      tags: ['service'],
      response: ReadyResp,
      handler: () => ready(deps.ready),
    }),
    defineRoute({
      method: 'GET',
      path: '',
      mount: 'v1',
      auth: 'none',
      summary: 'The v1 version document with scheduled deprecations',
      tags: ['service'],
      response: VersionResp,
      handler: () => ({
        version: '1',
        deprecations: deps.frozenRemovalDate
          ? [{ surface: 'unversioned routes', removal_date: deps.frozenRemovalDate, successor: '/v1' }]
          : [],
        docs: '/docs',
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      summary: 'This OpenAPI document',
      tags: ['service'],
      response: OpenApiDocument,
      handler: () => deps.openapi(),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      auth: 'none',
      summary: 'Browsable API reference where a request can be tried with a key (works offline)',
      tags: ['service'],
      produces: 'text/html',
      response: Type.String(),
      // The page is never cached: a new version names new viewer files.
      handler: async () => {
        const { page, policy } = await docsViewer()
        return new Response(page, {
          headers: {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-cache',
            'content-security-policy': policy,
          },
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/assets/:file',
      mount: 'unversioned',
      auth: 'none',
      hidden: true,
      summary: "A file of the API reference's viewer",
      tags: ['service'],
      params: Type.Object({ file: Type.String() }),
      handler: async ({ params }) => {
        const file = (await docsViewer()).assets.get(params.file)
        if (!file) throw fail('not_found', 'No such file of the API reference.')
        return new Response(file.body, { headers: { 'content-type': file.type, 'cache-control': IMMUTABLE } })
      },
    }),
  ]
}
