import { describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { buildOpenApi } from '../../src/platform/http/openapi'
import { defineRoute, type RouteDef } from '../../src/platform/http/route'
import { namedObject } from '../../src/platform/http/schema'

const info = { title: 't', version: '0', description: 'd' }
type Json = Record<string, any>

const Part = namedObject('Part', { n: Type.Integer() })
const Whole = namedObject('Whole', {
  part: Part,
  parts: Type.Array(Part),
  maybe: Type.Optional(Type.Union([Part, Type.Null()])),
  inline: Type.Object({ x: Type.String() }),
})

const route = (over: Partial<RouteDef>): RouteDef =>
  defineRoute({
    method: 'POST',
    path: '/things',
    auth: 'none',
    summary: 's',
    tags: ['t'],
    handler: () => null,
    ...over,
  } as RouteDef)

describe('buildOpenApi', () => {
  test('hoists every schema with an $id into components, wherever it is nested, without the $id', () => {
    const doc = buildOpenApi([route({ body: Whole, response: Part })], info) as Json
    const op = doc.paths['/v1/things'].post
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Whole' })
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Part',
    })
    const whole = doc.components.schemas.Whole
    expect(whole.properties.part).toEqual({ $ref: '#/components/schemas/Part' })
    expect(whole.properties.parts.items).toEqual({ $ref: '#/components/schemas/Part' })
    expect(whole.properties.maybe.anyOf[0]).toEqual({ $ref: '#/components/schemas/Part' })
    expect(whole.properties.inline.properties.x.type).toBe('string')
    expect(doc.components.schemas.Part).toEqual({
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'integer' } },
    })
    expect(JSON.stringify(doc)).not.toContain('$id')
  })

  test('refuses two different schemas under one name', () => {
    const Other = namedObject('Part', { m: Type.String() })
    expect(() => buildOpenApi([route({ body: Whole, response: Other })], info)).toThrow(
      'two different schemas are named Part',
    )
  })

  test('a stream route lists its events as {event, data} with named data schemas', () => {
    const Tick = namedObject('Tick', { at: Type.Integer() })
    const End = namedObject('End', { done: Type.Literal(true) })
    const doc = buildOpenApi(
      [route({ events: { tick: Tick, end: End }, produces: 'text/event-stream' })],
      info,
    )
    const ok = (doc as Json).paths['/things'].post.responses['200']
    expect(ok.content['text/event-stream'].schema.oneOf).toEqual([
      {
        type: 'object',
        required: ['event', 'data'],
        properties: { event: { const: 'tick' }, data: { $ref: '#/components/schemas/Tick' } },
      },
      {
        type: 'object',
        required: ['event', 'data'],
        properties: { event: { const: 'end' }, data: { $ref: '#/components/schemas/End' } },
      },
    ])
  })

  test('declared errors add their statuses, bodies and Retry-After; auth adds 401 and 403', () => {
    const doc = buildOpenApi(
      [route({ auth: 'admin', scope: 'query', path: '/things/:id', errors: ['serving_unavailable'] })],
      info,
    ) as Json
    const v1 = doc.paths['/v1/things/{id}'].post.responses
    expect(Object.keys(v1)).toEqual(['200', '400', '401', '403', '404', '409', '422', '503', 'default'])
    expect(v1['403'].description).toContain('`admin_required`')
    expect(v1['403'].description).toContain('`missing_scope`')
    expect(v1['503'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ServingUnavailableError',
    })
    expect(v1['503'].headers['Retry-After'].schema.type).toBe('integer')
    const frozen = doc.paths['/things/{id}'].post.responses
    expect(frozen['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Detail' })
    // Idempotency mismatch is a 422 with {detail: string} on the frozen mount, validation the FastAPI body.
    expect(frozen['422'].content['application/json'].schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/HTTPValidationError' }, { $ref: '#/components/schemas/Detail' }],
    })
  })
})
