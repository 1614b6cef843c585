import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compileErrors, validate } from '@readme/openapi-parser'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import openapiTS, { astToString } from 'openapi-typescript'
import {
  ChatDeltaEvent,
  ChatDoneEvent,
  ChatHeadEvent,
  StreamErrorEvent,
} from '../../src/features/answers/answers.schemas'
import { CompareSummaryEvent } from '../../src/features/economics/economics.schemas'
import { LevelRecord, ScaleDoneEvent, ScaleStartEvent } from '../../src/features/scale/scale.schemas'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { THREE_TOPICS } from './texts.fixture'

// Item 17 of issue 18: every request and response schema is named, the streams, the 503 and the
// per-route error responses are documented, the document validates, and a client generated from
// it type-checks against a sample program.

type Json = Record<string, any>
const ROOT = resolve(import.meta.dir, '../..')
const METHODS = ['get', 'post', 'put', 'patch', 'delete']

let t: TestApp
let doc: Json
let b: ReadyBase
beforeAll(async () => {
  t = authApp()
  doc = await (await t.request('/openapi.json')).json()
  b = await readyBase(t, THREE_TOPICS)
})
afterAll(() => t.close())

/** Every operation of the document as [METHOD path, operation]. */
function operations(): [string, Json][] {
  const out: [string, Json][] = []
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const m of METHODS) if (item[m]) out.push([`${m.toUpperCase()} ${path}`, item[m]])
  }
  return out
}

/** The component a schema names: itself a $ref, an array of $refs, or a page of $refs. */
function named(schema: Json | undefined): string | null {
  if (!schema) return null
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? null
  if (schema.type === 'array') return named(schema.items)
  return null
}

const component = (name: string): Json => doc.components.schemas[name]

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document (validated by @readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc) as never)
    if (!result.valid) throw new Error(compileErrors(result))
    expect(result.valid).toBe(true)
    expect(result.specification).toBe('OpenAPI')
    expect(result.warnings).toEqual([])
  })

  test('names every request body and every JSON success response as a component', () => {
    const unnamed: string[] = []
    let bodies = 0
    for (const [name, op] of operations()) {
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
        bodies++
        if (!named(media.schema) || !component(named(media.schema)!)) unnamed.push(`${name} body (${type})`)
      }
      for (const [status, res] of Object.entries<Json>(op.responses)) {
        const json = res.content?.['application/json']
        if (status.startsWith('2') && json && !named(json.schema)) unnamed.push(`${name} ${status}`)
      }
    }
    expect(unnamed).toEqual([])
    expect(bodies).toBeGreaterThan(40)
    const names = Object.keys(doc.components.schemas)
    for (const spec of ['RegisterReq', 'TokenResp', 'UserResp', 'LinkResp', 'CorpusResp', 'DocumentResp']) {
      expect(names).toContain(spec)
    }
    for (const spec of ['JobResp', 'ChatReq', 'ChatResp', 'ApiKeyResp', 'McpDocsResp', 'ScaleRunResp']) {
      expect(names).toContain(spec)
    }
    expect(names.length).toBeGreaterThan(60)
    // A nested named schema is referenced, not copied.
    expect(component('ChatResp').properties.sources.items).toEqual({ $ref: '#/components/schemas/Source' })
    expect(component('CorpusRespPage').properties.items.items).toEqual({
      $ref: '#/components/schemas/CorpusResp',
    })
    expect(JSON.stringify(doc)).not.toContain('"$id"')
  })

  test('documents the three streams as text/event-stream with each event and its data schema', () => {
    const streams: Record<string, Record<string, string>> = {
      '/corpora/{corpus_id}/chat/stream': {
        head: 'ChatHeadEvent',
        delta: 'ChatDeltaEvent',
        done: 'ChatDoneEvent',
        error: 'StreamErrorEvent',
      },
      '/corpora/{corpus_id}/compare/stream': {
        head: 'ChatHeadEvent',
        delta: 'ChatDeltaEvent',
        summary: 'CompareSummaryEvent',
        error: 'StreamErrorEvent',
      },
      '/corpora/{corpus_id}/scale-test/stream': {
        start: 'ScaleStartEvent',
        level: 'LevelRecord',
        done: 'ScaleDoneEvent',
        error: 'StreamErrorEvent',
      },
    }
    for (const [path, events] of Object.entries(streams)) {
      for (const mounted of [`/v1${path}`, path]) {
        const ok = doc.paths[mounted].post.responses['200']
        expect(Object.keys(ok.content)).toEqual(['text/event-stream'])
        const shown = Object.fromEntries(
          ok.content['text/event-stream'].schema.oneOf.map((e: Json) => [
            e.properties.event.const,
            named(e.properties.data),
          ]),
        )
        expect(shown).toEqual(events)
        for (const name of Object.keys(events)) expect(ok.description).toContain(`\`${name}\``)
      }
    }
    expect(component('LevelRecord').properties.cart).toEqual({ $ref: '#/components/schemas/LevelStats' })
  })

  test('documents the 503 serving_unavailable body and its Retry-After header on the answering routes', () => {
    for (const path of [
      '/corpora/{corpus_id}/chat',
      '/corpora/{corpus_id}/chat/stream',
      '/mcp/{corpus_id}/query',
    ]) {
      const v1 = doc.paths[`/v1${path}`].post.responses['503']
      expect(v1.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ServingUnavailableError',
      })
      expect(v1.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } })
      expect(v1.description).toContain('serving_unavailable')
      const frozen = doc.paths[path].post.responses['503']
      expect(frozen.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Detail' })
      expect(frozen.headers['Retry-After'].required).toBe(true)
    }
    const body = component('ServingUnavailableError')
    expect(body.allOf[0]).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' })
    expect(body.allOf[1].properties.error.properties).toEqual({
      code: { const: 'serving_unavailable' },
      details: { $ref: '#/components/schemas/ServingUnavailableDetail' },
    })
    expect(component('ServingUnavailableDetail').required).toEqual(['retry_after_seconds'])
    // Routes that cannot be unavailable do not say they can.
    expect(doc.paths['/v1/corpora'].get.responses['503']).toBeUndefined()
  })

  test('documents 401, 403, 404 and 422 per route from its auth, scope and parameters', () => {
    for (const [name, op] of operations()) {
      const r = op.responses
      const v1 = name.split(' ')[1]!.startsWith('/v1')
      const envelope = { $ref: `#/components/schemas/${v1 ? 'ErrorEnvelope' : 'Detail'}` }
      if (op.security) {
        expect(r['401']?.content['application/json'].schema, name).toEqual(envelope)
        expect(r['401'].description, name).toContain('`unauthorized`')
        expect(r['403'].description, name).toContain('`workspace_suspended`')
      } else {
        expect(r['401'], name).toBeUndefined()
      }
      if (op['x-required-scope']) expect(r['403'].description, name).toContain('`missing_scope`')
      if (op.description?.includes('Requires a workspace admin.')) {
        expect(r['403'].description, name).toContain('`admin_required`')
      }
      if (name.includes('{')) expect(r['404']?.description, name).toContain('`not_found`')
      // A route without a path parameter may still declare a 404 of its own (`sso_not_configured`
      // for an address no workspace signs in), never the generic `not_found`.
      else expect(r['404']?.description ?? '', name).not.toContain('`not_found`')
      const invalid = r['422'].content['application/json'].schema
      if (v1) expect(invalid, name).toEqual(envelope)
      else expect(JSON.stringify(invalid), name).toContain('#/components/schemas/HTTPValidationError')
      expect(r.default.content['application/json'].schema, name).toEqual(envelope)
    }
    const admin = doc.paths['/v1/admin/members'].get.responses
    expect(admin['403'].description).toContain('`admin_required`')
    const login = doc.paths['/v1/auth/login'].post
    expect(login.responses['401']).toBeUndefined()
    // Rate-limited routes document the 429 and its Retry-After.
    expect(login.responses['429'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RateLimitedError',
    })
    expect(login.responses['429'].headers['Retry-After'].required).toBe(true)
    expect(Object.keys(login.requestBody.content)).toEqual(['application/x-www-form-urlencoded'])
  })

  test('a client generated by openapi-typescript type-checks against the sample program', async () => {
    const types = astToString(await openapiTS(structuredClone(doc) as never, { silent: true }))
    const dir = mkdtempSync(join(tmpdir(), 'engram-openapi-'))
    try {
      writeFileSync(join(dir, 'engram-api.d.ts'), types)
      const sample = readFileSync(join(ROOT, 'tests/openapi-client/sample.ts'), 'utf8')
      writeFileSync(join(dir, 'sample.ts'), sample)
      // The same program without its @ts-expect-error lines must fail exactly there: the types bite.
      writeFileSync(
        join(dir, 'unchecked.ts'),
        sample.replace(/^\s*\/\/ @ts-expect-error.*$/gm, '// (removed)'),
      )
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'bundler',
            lib: ['ES2022', 'DOM'],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
          },
          files: ['sample.ts', 'unchecked.ts'],
        }),
      )
      const tsc = Bun.spawnSync(
        [process.execPath, join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir],
        {
          cwd: dir,
          env: { ...process.env, BUN_BE_BUN: '1' },
        },
      )
      const out = tsc.stdout.toString() + tsc.stderr.toString()
      const errors = out.split('\n').filter((l) => /error TS\d+/.test(l))
      expect(errors.filter((l) => !l.startsWith('unchecked.ts'))).toEqual([])
      expect(errors.length).toBe(3)
      expect(types).toContain('ServingUnavailableDetail: {')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('the streams send what the document says', () => {
  const check = (events: { event: string; data: unknown }[], schemas: Record<string, TSchema>) => {
    expect(events.length).toBeGreaterThan(1)
    for (const e of events) {
      const schema = schemas[e.event]
      expect(schema, e.event).toBeDefined()
      expect([...Value.Errors(schema!, e.data)].map((x) => `${e.event}${x.path}: ${x.message}`)).toEqual([])
    }
  }
  const post = (path: string, json: unknown) =>
    t.request(`/v1/corpora/${b.corpusId}${path}`, { method: 'POST', headers: bearer(b.adminToken), json })

  test('chat/stream and compare/stream events match their data schemas', async () => {
    const question = { question: 'When did the 1973 oil crisis begin?' }
    const chat = parseSse(await (await post('/chat/stream', question)).text())
    expect(chat.map((e) => e.event).at(-1)).toBe('done')
    check(chat, { head: ChatHeadEvent, delta: ChatDeltaEvent, done: ChatDoneEvent, error: StreamErrorEvent })
    const compare = parseSse(await (await post('/compare/stream?side=rag', question)).text())
    expect(compare.map((e) => e.event).at(-1)).toBe('summary')
    check(compare, {
      head: ChatHeadEvent,
      delta: ChatDeltaEvent,
      summary: CompareSummaryEvent,
      error: StreamErrorEvent,
    })
  })

  test('scale-test/stream events match their data schemas', async () => {
    const res = await post('/scale-test/stream', {
      queries: ['When did the oil crisis begin?'],
      max_concurrency: 1,
    })
    expect(res.status).toBe(200)
    const events = parseSse(await res.text())
    expect(events.map((e) => e.event)).toEqual(['start', 'level', 'done'])
    check(events, {
      start: ScaleStartEvent,
      level: LevelRecord,
      done: ScaleDoneEvent,
      error: StreamErrorEvent,
    })
  })
})
