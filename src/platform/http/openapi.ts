import type { TObject, TSchema } from '@sinclair/typebox'
import { mountedPath, querySchemaOf, stylesOf } from './mount'
import { errorSchemas } from './render'
import type { ApiStyle, RouteDef } from './route'

/** Facts about the service printed in the document's `info`. */
export interface OpenApiInfo {
  title: string
  version: string
  description: string
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * Builds the OpenAPI 3.1 document from the route definitions: every route under each of its
 * mounts, with its parameters, request body, success schema, error shapes and required scope.
 */
export function buildOpenApi(routes: RouteDef[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    for (const style of stylesOf(route)) {
      const path = mountedPath(route, style).replace(/:([A-Za-z0-9_]+)/g, '{$1}')
      paths[path] ??= {}
      paths[path][route.method.toLowerCase()] = operation(route, style, path)
    }
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: errorSchemas,
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

function operation(route: RouteDef, style: ApiStyle, path: string): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = []
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
  const paramProps = (route.params as TObject | undefined)?.properties ?? {}
  for (const name of pathParams) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: clean(paramProps[name] ?? { type: 'string' }),
    })
  }
  const query = querySchemaOf(route, style)
  for (const [name, schema] of Object.entries(query.properties)) {
    parameters.push({
      name,
      in: 'query',
      required: (query.required ?? []).includes(name),
      schema: clean(schema),
      ...(schema.description ? { description: schema.description } : {}),
    })
  }

  const op: Record<string, unknown> = {
    operationId: `${style}_${route.method.toLowerCase()}_${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    summary: route.summary,
    tags: route.tags,
    parameters,
    responses: responses(route, style),
  }
  const notes: string[] = []
  if (route.description) notes.push(route.description)
  if (route.auth === 'admin') notes.push('Requires a workspace admin.')
  if (route.scope) notes.push(`API keys need the \`${route.scope}\` scope.`)
  if (notes.length) op.description = notes.join('\n\n')
  if (route.scope) op['x-required-scope'] = route.scope
  if (route.auth !== 'none') op.security = [{ bearer: [] }]
  if (route.body && route.bodyKind !== 'stream') {
    const type = route.bodyKind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json'
    op.requestBody = { required: true, content: { [type]: { schema: clean(route.body) } } }
  }
  if (route.bodyKind === 'stream' && route.body) {
    op.requestBody = { required: true, content: { 'multipart/form-data': { schema: clean(route.body) } } }
  }
  return op
}

function responses(route: RouteDef, style: ApiStyle): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const status = String(route.status ?? 200)
  if (route.list && route.response) {
    const item = clean(route.response)
    if (style === 'v1') {
      out[status] = {
        description: 'One page; follow `next_cursor` until it is null.',
        headers: {
          'X-Total-Count': { schema: { type: 'integer' } },
          'X-Next-Cursor': { schema: { type: 'string' } },
        },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['items', 'next_cursor'],
              properties: {
                items: { type: 'array', items: item },
                next_cursor: { type: ['string', 'null'] },
              },
            },
          },
        },
      }
    } else {
      out[status] = {
        description: 'The whole list.',
        content: { 'application/json': { schema: { type: 'array', items: item } } },
      }
    }
  } else if (route.response) {
    out[status] = {
      description: 'Success.',
      content: { [route.produces ?? 'application/json']: { schema: clean(route.response) } },
    }
  } else {
    out[status] = { description: 'Success.' }
  }
  if (style === 'v1') {
    out.default = {
      description: 'Error envelope.',
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
    }
  } else {
    out['422'] = {
      description: 'Validation error.',
      content: { 'application/json': { schema: ref('HTTPValidationError') } },
    }
    out.default = { description: 'Error.', content: { 'application/json': { schema: ref('Detail') } } }
  }
  return out
}

/** A plain JSON copy of a TypeBox schema (drops TypeBox's symbol keys). */
function clean(schema: TSchema | Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(schema))
}
