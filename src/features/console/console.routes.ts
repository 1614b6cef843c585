import { Type } from '@sinclair/typebox'
import { fail } from '../../platform/errors/errors'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { consoleAssets } from './console.assets'

/** Hashed names never change content, so a browser keeps them for a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * `/console/...`: the web console. Every path under it answers the app's page (the app routes in
 * the browser); `/console/assets/<hashed name>` answers the bundle. The page is never cached, so a
 * new version is picked up on the next load. Not part of the API, so not in the OpenAPI document.
 */
export function consoleRoutes(): RouteDef[] {
  const page = async () => {
    const { index, policy } = await consoleAssets()
    return new Response(index.body, {
      headers: { 'content-type': index.type, 'cache-control': 'no-cache', 'content-security-policy': policy },
    })
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/console/assets/:file',
      mount: 'unversioned',
      auth: 'none',
      hidden: true,
      summary: 'A file of the console bundle',
      tags: ['console'],
      params: Type.Object({ file: Type.String() }),
      handler: async ({ params }) => {
        const file = (await consoleAssets()).assets.get(params.file)
        if (!file) throw fail('not_found', 'No such console file.')
        return new Response(file.body, { headers: { 'content-type': file.type, 'cache-control': IMMUTABLE } })
      },
    }),
    // The router matches `/console/` to `/console`: the bare path is sent to the slashed one.
    defineRoute({
      method: 'GET',
      path: '/console',
      mount: 'unversioned',
      auth: 'none',
      hidden: true,
      summary: 'The web console',
      tags: ['console'],
      produces: 'text/html',
      response: Type.String(),
      query: Type.Object({}, { additionalProperties: true }),
      handler: ({ url }) =>
        url.pathname.endsWith('/')
          ? page()
          : new Response(null, { status: 308, headers: { location: '/console/' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/console/*',
      mount: 'unversioned',
      auth: 'none',
      hidden: true,
      summary: 'A page of the web console',
      tags: ['console'],
      produces: 'text/html',
      response: Type.String(),
      // The app reads its own query (`?next=`, `?token=`).
      query: Type.Object({}, { additionalProperties: true }),
      handler: page,
    }),
  ]
}
