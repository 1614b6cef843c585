import type { TObject, TSchema } from '@sinclair/typebox'
import { mountedPath, querySchemaOf, stylesOf } from './mount'
import { Components, refName } from './openapi-components'
import { codeErrorSchemas, failures } from './openapi-errors'
import { errorSchemas } from './render'
import { type ApiStyle, idempotencyOf, type RouteDef } from './route'

const ONCE_NOTE =
  'The answer carries a secret that is never stored, so an `Idempotency-Key` is not replayed here: ' +
  'the first request with a key runs, and any later one with the same key is refused with 409 ' +
  '`idempotency_key_reused` (send a new key to make another request).'

/** Facts about the service printed in the document's `info`. */
export interface OpenApiInfo {
  title: string
  version: string
  description: string
}

/**
 * Builds the OpenAPI 3.1 document from the route definitions: every route under each of its
 * mounts, with its parameters, named request and response schemas, server-sent events, the
 * error responses its auth, inputs and declared errors can give, and its required scope.
 */
export function buildOpenApi(routes: RouteDef[], info: OpenApiInfo): Record<string, unknown> {
  const components = new Components({ ...errorSchemas, ...codeErrorSchemas() })
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (route.hidden) continue
    for (const style of stylesOf(route)) {
      const path = mountedPath(route, style).replace(/:([A-Za-z0-9_]+)/g, '{$1}')
      paths[path] ??= {}
      paths[path][route.method.toLowerCase()] = operation(route, style, path, components)
    }
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A session token from /v1/auth/login, or an API key (`ek_...`).',
        },
      },
    },
  }
}

function operation(
  route: RouteDef,
  style: ApiStyle,
  path: string,
  components: Components,
): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = []
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
  const paramProps = (route.params as TObject | undefined)?.properties ?? {}
  for (const name of pathParams) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: components.use(paramProps[name] ?? { type: 'string' }),
    })
  }
  const query = querySchemaOf(route, style)
  for (const [name, schema] of Object.entries(query.properties)) {
    parameters.push({
      name,
      in: 'query',
      required: (query.required ?? []).includes(name),
      schema: components.use(schema),
      ...(schema.description ? { description: schema.description } : {}),
    })
  }

  const op: Record<string, unknown> = {
    operationId: `${style}_${route.method.toLowerCase()}_${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    summary: route.summary,
    tags: route.tags,
    parameters,
    responses: { ...success(route, style, components), ...failures(route, style) },
  }
  const notes: string[] = []
  if (route.description) notes.push(route.description)
  if (route.auth === 'admin') notes.push('Requires a workspace admin.')
  if (route.scope) notes.push(`API keys need the \`${route.scope}\` scope.`)
  if (idempotencyOf(route) === 'once') notes.push(ONCE_NOTE)
  if (notes.length) op.description = notes.join('\n\n')
  if (route.scope) op['x-required-scope'] = route.scope
  if (route.auth !== 'none') op.security = [{ bearer: [] }]
  if (route.body) {
    const type =
      route.bodyKind === 'stream'
        ? 'multipart/form-data'
        : route.bodyKind === 'form'
          ? 'application/x-www-form-urlencoded'
          : 'application/json'
    op.requestBody = { required: true, content: { [type]: { schema: components.use(route.body) } } }
  }
  return op
}

function success(route: RouteDef, style: ApiStyle, components: Components): Record<string, unknown> {
  const status = String(route.status ?? 200)
  if (route.events) return { [status]: eventStream(route.events, components) }
  if (route.list && route.response) {
    const item = components.use(route.response)
    if (style === 'v1') {
      const page = {
        type: 'object',
        required: ['items', 'next_cursor'],
        properties: {
          items: { type: 'array', items: item },
          next_cursor: {
            type: ['string', 'null'],
            description: 'Cursor of the next page; null on the last.',
          },
        },
      }
      const name = refName(item)
      return {
        [status]: {
          description: 'One page; follow `next_cursor` until it is null.',
          headers: {
            'X-Total-Count': { schema: { type: 'integer' } },
            'X-Next-Cursor': { schema: { type: 'string' } },
          },
          content: {
            'application/json': { schema: name ? components.define(`${name}Page`, page) : page },
          },
        },
      }
    }
    return {
      [status]: {
        description: 'The whole list.',
        content: { 'application/json': { schema: { type: 'array', items: item } } },
      },
    }
  }
  if (route.response) {
    return {
      [status]: {
        description: 'Success.',
        content: { [route.produces ?? 'application/json']: { schema: components.use(route.response) } },
      },
    }
  }
  return { [status]: { description: 'Success.' } }
}

/**
 * A `text/event-stream` response. OpenAPI 3.1 has no notion of a stream of items, so the schema
 * describes one event as `{event, data}` (one per event name), which is how clients parse them.
 */
function eventStream(events: Record<string, TSchema>, components: Components): Record<string, unknown> {
  const names = Object.keys(events)
  return {
    description:
      `Server-sent events, in this order: ${names.map((n) => `\`${n}\``).join(', ')}. Each is sent as ` +
      '`event: <name>` and one `data: <JSON>` line; the schema describes one event as `{event, data}`. ' +
      'Exactly one terminal event ends the stream; comment lines (`: keep-alive`) may come between events.',
    content: {
      'text/event-stream': {
        schema: {
          oneOf: names.map((name) => ({
            type: 'object',
            required: ['event', 'data'],
            properties: { event: { const: name }, data: components.use(events[name]!) },
          })),
        },
      },
    },
  }
}
