import { actorOf } from '../../platform/auth/principal'
import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import {
  ConnectionParams,
  ConnectionReq,
  ConnectionResp,
  ConnectionUpdateReq,
  connectionResp,
  describeKinds,
  SourceKindsResp,
} from './sources.schemas'
import type { SourcesService } from './sources.service'

/** A workspace's connections: credentials for one kind of source, shared by sources and imports. */
export function connectionRoutes(sources: SourcesService): RouteDef[] {
  const connections = sources.connections
  const kinds = describeKinds(sources.kinds())
  return [
    defineRoute({
      method: 'GET',
      path: '/source-kinds',
      mount: 'v1',
      auth: 'bearer',
      // The kinds of source there are: nothing about any base.
      boundKeys: 'served',
      summary: 'The kinds of source this workspace can connect, and why one is off',
      description:
        'A server folder (`folder`) is off until the operator grants this workspace a folder (`sources.folder_roots`); the other kinds reach out over the network and are always on.',
      tags: ['sources'],
      response: SourceKindsResp,
      handler: async ({ principal }) => ({ kinds: await sources.kindsFor(principal.workspaceId) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/connections',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: 'Add a connection (credentials for one kind of source)',
      description: `Secrets are stored encrypted and are write-only: no answer ever contains them. Fields by kind:\n${kinds}`,
      tags: ['sources'],
      body: ConnectionReq,
      status: 201,
      response: ConnectionResp,
      errors: ['egress_denied'],
      handler: async ({ principal, body, ip, requestId }) =>
        reply(
          201,
          connectionResp(
            await connections.create(principal.workspaceId, body, actorOf(principal, ip, requestId)),
          ),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/connections',
      mount: 'v1',
      auth: 'bearer',
      summary: "The workspace's connections (which secret fields are set, never their values)",
      tags: ['sources'],
      list: true,
      response: ConnectionResp,
      handler: async ({ principal }) => {
        const items = (await connections.list(principal.workspaceId)).map(connectionResp)
        return { items, total: items.length, nextCursor: null }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/connections/:connection_id',
      mount: 'v1',
      auth: 'bearer',
      summary: 'One connection',
      tags: ['sources'],
      params: ConnectionParams,
      response: ConnectionResp,
      handler: async ({ principal, params }) =>
        connectionResp(await connections.get(principal.workspaceId, params.connection_id)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/connections/:connection_id',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary:
        'Change a connection: settings replaced when given; each secret given replaced (null clears it)',
      tags: ['sources'],
      params: ConnectionParams,
      body: ConnectionUpdateReq,
      response: ConnectionResp,
      errors: ['egress_denied'],
      handler: async ({ principal, params, body, ip, requestId }) =>
        connectionResp(
          await connections.update(
            principal.workspaceId,
            params.connection_id,
            body,
            actorOf(principal, ip, requestId),
          ),
        ),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/connections/:connection_id',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: 'Delete a connection no source uses (409 `connection_in_use` otherwise)',
      tags: ['sources'],
      params: ConnectionParams,
      status: 204,
      errors: ['connection_in_use'],
      handler: async ({ principal, params, ip, requestId }) => {
        await connections.delete(
          principal.workspaceId,
          params.connection_id,
          actorOf(principal, ip, requestId),
        )
        return reply(204)
      },
    }),
  ]
}
