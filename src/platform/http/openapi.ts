import type { TObject, TSchema } from '@sinclair/typebox'
import { type ErrorCode, errorTable } from '../errors/errors'
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

/** Keys whose values are data, not sub-schemas: never searched for named schemas. */
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples', 'example'])

/**
 * The component schemas of the document. A TypeBox schema given `$id: 'Name'` in its feature's
 * schemas file becomes `components.schemas.Name` wherever it appears (at the top of a body or
 * nested in another schema) and is referenced with `$ref`: naming is decided next to the schema,
 * never listed here. Two different schemas under one name are a programming error.
 */
class Components {
  readonly schemas: Record<string, unknown> = {}
  private readonly defined = new Map<string, string>()

  constructor(fixed: Record<string, unknown>) {
    for (const [name, schema] of Object.entries(fixed)) this.define(name, schema)
  }

  /** A plain JSON copy of a TypeBox schema, its named parts replaced by references. */
  use(schema: TSchema | Record<string, unknown>): unknown {
    return this.hoist(JSON.parse(JSON.stringify(schema)))
  }

  /** Registers `schema` under `name` (idempotent for an identical schema) and returns its `$ref`. */
  define(name: string, schema: unknown): { $ref: string } {
    const json = JSON.stringify(schema)
    const before = this.defined.get(name)
    if (before !== undefined && before !== json) {
      throw new Error(`OpenAPI: two different schemas are named ${name}; give one another $id.`)
    }
    if (before === undefined) {
      this.defined.set(name, json)
      this.schemas[name] = schema
    }
    return ref(name)
  }

  private hoist(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.hoist(n))
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    let name: string | null = null
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      // `$id` would also re-base every nested `$ref` under JSON Schema 2020-12: drop it.
      if (k === '$id') name = typeof v === 'string' ? v : null
      else if (k === 'properties' && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, this.hoist(s)]))
      } else out[k] = DATA_KEYWORDS.has(k) ? v : this.hoist(v)
    }
    return name ? this.define(name, out) : out
  }
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

/** The error codes a route can answer, from its auth, inputs, body and declared `errors`. */
function errorCodes(route: RouteDef, style: ApiStyle): ErrorCode[] {
  const codes = new Set<ErrorCode>()
  const bodyKind = route.bodyKind ?? 'json'
  if (route.body && bodyKind !== 'stream') {
    if (bodyKind === 'json') codes.add('malformed_json')
    codes.add('payload_too_large')
    codes.add('unsupported_media_type')
  }
  const idempotent =
    route.idempotent ?? (['POST', 'PUT', 'DELETE'].includes(route.method) && bodyKind !== 'stream')
  if (idempotent) {
    codes.add('bad_request')
    codes.add('idempotency_in_progress')
    codes.add('idempotency_mismatch')
  }
  if (route.auth !== 'none') {
    codes.add('unauthorized')
    codes.add('account_disabled')
    codes.add('workspace_suspended')
    if (route.scope) codes.add('missing_scope')
    if (route.auth === 'admin') codes.add('admin_required')
  }
  if (route.path.includes(':')) codes.add('not_found')
  // Every route validates its query (unknown parameters are refused), so every route can 422.
  codes.add('validation_error')
  if (route.list && style === 'v1') codes.add('invalid_cursor')
  for (const code of route.errors ?? []) codes.add(code)
  return [...codes]
}

/** One response per error status the route can give, in the error shape of the mount. */
function failures(route: RouteDef, style: ApiStyle): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of errorCodes(route, style)) {
    const status: number = errorTable[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const out: Record<string, unknown> = {}
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const response: Record<string, unknown> = {
      description: codes.map((c) => `\`${c}\`: ${errorTable[c].message}`).join('\n\n'),
      content: { 'application/json': { schema: errorBody(codes, style) } },
    }
    if (codes.some((c) => 'retryAfter' in errorTable[c])) {
      response.headers = {
        'Retry-After': {
          description: 'Seconds to wait before trying again.',
          required: true,
          schema: { type: 'integer', minimum: 0 },
        },
      }
    }
    out[String(status)] = response
  }
  out.default = {
    description: 'Any other error (`internal_error` and the rest of the error table).',
    content: { 'application/json': { schema: ref(style === 'v1' ? 'ErrorEnvelope' : 'Detail') } },
  }
  return out
}

function errorBody(codes: ErrorCode[], style: ApiStyle): unknown {
  if (style === 'frozen') {
    const validation = codes.includes('validation_error')
    if (validation && codes.length === 1) return ref('HTTPValidationError')
    return validation ? { anyOf: [ref('HTTPValidationError'), ref('Detail')] } : ref('Detail')
  }
  const only = codes.length === 1 ? codes[0]! : null
  if (only && 'details' in errorTable[only]) return ref(codeErrorName(only))
  return ref('ErrorEnvelope')
}

const codeErrorName = (code: string) =>
  `${code.replace(/(^|_)([a-z])/g, (_, _s: string, c: string) => c.toUpperCase())}Error`

/**
 * For each error code whose table row gives a `details` schema: its `/v1` body, the envelope with
 * that code and those details (`ServingUnavailableError` carries `ServingUnavailableDetail`).
 */
function codeErrorSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const named = new Components({})
  for (const [code, row] of Object.entries(errorTable)) {
    if (!('details' in row)) continue
    out[codeErrorName(code)] = {
      allOf: [
        ref('ErrorEnvelope'),
        {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              required: ['details'],
              properties: { code: { const: code }, details: named.use(row.details as TSchema) },
            },
          },
        },
      ],
    }
  }
  return { ...named.schemas, ...out }
}

function refName(schema: unknown): string | null {
  const r = (schema as { $ref?: unknown } | null)?.$ref
  return typeof r === 'string' ? r.slice('#/components/schemas/'.length) : null
}
