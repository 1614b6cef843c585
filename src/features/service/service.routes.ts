import { Type } from '@sinclair/typebox'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { pagePolicy } from '../../platform/http/security-headers'
import docsPage from './docs.html' with { type: 'text' }
import { OpenApiDocument, RootResp, VersionResp } from './service.schemas'

/** What the service routes need: the version, the deprecation schedule and the OpenAPI document. */
export interface ServiceRouteDeps {
  version: string
  frozenRemovalDate: string | null
  openapi: () => Record<string, unknown>
}

/** The docs page runs only its own inline script and style (by hash) and fetches only this origin. */
const DOCS_POLICY = pagePolicy(docsPage as unknown as string)

/** `GET /`, `GET /v1`, `/openapi.json` and `/docs` (spec, Service and versions). */
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
      mount: 'unversioned',
      auth: 'none',
      summary: 'This OpenAPI document',
      tags: ['service'],
      response: OpenApiDocument,
      handler: () => deps.openapi(),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      mount: 'unversioned',
      auth: 'none',
      summary: 'Browsable API documentation (works offline)',
      tags: ['service'],
      produces: 'text/html',
      response: Type.String(),
      handler: () =>
        new Response(docsPage as unknown as string, {
          headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_POLICY },
        }),
    }),
  ]
}
