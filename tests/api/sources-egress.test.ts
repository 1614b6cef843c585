// A workspace admin's S3 endpoint cannot aim the server at its own network (issue 32 item 5): loopback,
// the server's own addresses and metadata are refused however the host is written, before anything
// is stored or any port is contacted, and what validate answers does not tell one port from another.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type Server } from 'node:net'
import { startupWarnings } from '../../src/cli/serve'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { type S3Standin, startS3rver } from '../helpers/standins/s3rver'
import { auditRows, authApp, bearer, rows, signUp } from './accounts.fixture'
import { createBase } from './ingest.fixture'
import { call, connection, source } from './sources.fixture'

let s3: S3Standin
let web: ReturnType<typeof Bun.serve>
let webHits = 0
let garbage: Server
let closed = 0

const SECRETS = { access_key: 'AKIAPROBE', secret_key: 'probe-secret-value' }
const s3Connection = (endpoint: string) => ({
  kind: 's3',
  name: 'Bucket',
  settings: { endpoint, bucket: 'docs' },
  secrets: SECRETS,
})

/** The error of a response without its request id, which differs on every request. */
async function errorOf(res: Response): Promise<{ status: number; error: Record<string, unknown> }> {
  const body = (await res.json()) as { error?: Record<string, unknown> }
  const { request_id: _, ...error } = body.error ?? (body as Record<string, unknown>)
  return { status: res.status, error }
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return (server.address() as { port: number }).port
}

beforeAll(async () => {
  s3 = await startS3rver()
  web = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => {
      webHits++
      return new Response('<html>router admin</html>', { headers: { 'content-type': 'text/html' } })
    },
  })
  garbage = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'))
  await listen(garbage)
  const gone = createServer()
  closed = await listen(gone)
  await new Promise((r) => gone.close(r))
})

afterAll(async () => {
  web.stop(true)
  garbage.close()
  await s3.stop()
})

describe('by default (sources.allow_loopback off)', () => {
  let t: TestApp
  let admin: Awaited<ReturnType<typeof signUp>>
  beforeAll(async () => {
    t = authApp()
    admin = await signUp(t)
  })
  afterAll(() => t.close())

  test('an endpoint on loopback, this server or a metadata address, however written, is 422 egress_denied; nothing is written', async () => {
    const before = await rows(t, 'connections')
    for (const host of [
      '127.0.0.1',
      'localhost',
      '127.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '0.0.0.0',
      '[::1]',
      '[::]',
      '[::ffff:127.0.0.1]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:a9fe:a9fe::1]',
      '[::a9fe:a9fe]',
      '169.254.169.254',
    ]) {
      const res = await t.request('/v1/connections', {
        method: 'POST',
        headers: bearer(admin.token),
        json: s3Connection(`http://${host}:9000`),
      })
      const { status, error } = await errorOf(res)
      expect([host, status, error.code]).toEqual([host, 422, 'egress_denied'])
      expect(error.details).toMatchObject({ field: 'settings.endpoint' })
    }
    expect(await rows(t, 'connections')).toBe(before)
    expect(await auditRows(t, 'connection.created')).toHaveLength(0)
  })

  test('an existing connection cannot be moved onto loopback', async () => {
    const id = await connection(t, admin.token, s3Connection('http://93.184.216.34:9000'))
    const res = await t.request(`/v1/connections/${id}`, {
      method: 'PUT',
      headers: bearer(admin.token),
      json: { settings: { endpoint: 'http://127.1:9000', bucket: 'docs' } },
    })
    expect((await errorOf(res)).error.code).toBe('egress_denied')
    expect((await call(t, admin.token, 'GET', `/v1/connections/${id}`)).body).toMatchObject({
      settings: { endpoint: 'http://93.184.216.34:9000' },
    })
  })

  test('a closed port, a web server and an S3 server on loopback get the same answer, and none is contacted', async () => {
    const answers = []
    for (const port of [closed, web.port, Number(new URL(s3.endpoint).port)]) {
      const res = await t.request('/v1/connections', {
        method: 'POST',
        headers: bearer(admin.token),
        json: s3Connection(`http://127.0.0.1:${port}`),
      })
      answers.push(await errorOf(res))
    }
    expect(answers[0]).toEqual({
      status: 422,
      error: {
        code: 'egress_denied',
        status: 422,
        message: `Outbound requests to "127.0.0.1" are not allowed (loopback or this server's own address, allowed only by sources.allow_loopback).`,
        details: { field: 'settings.endpoint', reason: 'loopback' },
      },
    })
    expect(answers[1]).toEqual(answers[0]!)
    expect(answers[2]).toEqual(answers[0]!)
    expect(webHits).toBe(0)
  })
})

describe('with loopback allowed by the operator (a stand-in for a host of the network)', () => {
  let t: TestApp
  let admin: Awaited<ReturnType<typeof signUp>>
  beforeAll(async () => {
    t = authApp({
      env: { ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true', ENGRAM_SOURCES_REQUEST_TIMEOUT_SECONDS: '2' },
    })
    admin = await signUp(t)
  })
  afterAll(() => t.close())

  test('validate answers alike for a closed port, another protocol and a web server: no errno, no status, no body', async () => {
    const base = await createBase(t, admin.token)
    const validate = async (port: number) => {
      const conn = await connection(t, admin.token, s3Connection(`http://127.0.0.1:${port}`))
      const id = await source(t, admin.token, base, { connection_id: conn, folder: '' })
      const res = await t.request(`/v1/corpora/${base}/sources/${id}/validate`, {
        method: 'POST',
        headers: bearer(admin.token),
      })
      return errorOf(res)
    }
    const unreachable = {
      status: 502,
      error: {
        code: 'source_unreachable',
        status: 502,
        message: 'The S3 endpoint could not be reached, or did not answer as an S3 server.',
        details: { source_error: 'unreachable' },
      },
    }
    expect(await validate(closed)).toEqual(unreachable)
    expect(await validate((garbage.address() as { port: number }).port)).toEqual(unreachable)
    expect(await validate(web.port ?? 0)).toEqual(unreachable)
    // An S3 server answers as one: it refuses the keys.
    expect((await validate(Number(new URL(s3.endpoint).port))).error.code).toBe('source_credentials_rejected')
  })
})

test('the server warns at start-up while loopback is open to workspaces, unless private networks are denied', () => {
  const warnings = (env: Record<string, string>) =>
    startupWarnings(
      loadConfig({ env: { ENGRAM_EMAIL: 'smtp://mail.example.com:25', ...env }, readFile: () => null }),
    )
  expect(warnings({})).toEqual([])
  expect(warnings({ ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true' })).toEqual([
    { level: 'warn', msg: expect.stringContaining('ENGRAM_SOURCES_ALLOW_LOOPBACK=true') },
  ])
  expect(
    warnings({ ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true', ENGRAM_SOURCES_DENY_PRIVATE_NETWORKS: 'true' }),
  ).toEqual([])
})
