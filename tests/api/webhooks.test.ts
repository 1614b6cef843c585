import { afterAll, describe, expect, test } from 'bun:test'
import { Destinations } from '../../src/features/webhooks/webhooks.destinations'
import { Sender } from '../../src/features/webhooks/webhooks.sender'
import { loadConfig } from '../../src/platform/config/config.load'
import { EgressDenied } from '../../src/platform/net/egress'
import { auditRows, authApp, bearer, expectError, issues, mintKey, rows, signUp } from './accounts.fixture'
import { receiver } from './webhooks.fixture'

// Issue 36, outbound webhooks: the /v1/webhooks routes, what they refuse (each refusal writes
// nothing), the outbound rules a URL is judged by, and the signing secret shown once and never again.

const t = authApp()
afterAll(() => t.close())

/** A public address as a literal: the guard judges it without a DNS lookup. */
const PUBLIC_URL = 'https://93.184.216.34/hooks'

const post = (token: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
  t.request(path, { method: 'POST', headers: { ...bearer(token), ...headers }, json })
const get = (token: string, path: string) => t.request(path, { headers: bearer(token) })

/** Rows of the webhook tables, and the audit rows: what a refused request must leave as it was. */
const counts = async () => ({
  endpoints: await rows(t, 'webhook_endpoints'),
  deliveries: await rows(t, 'webhook_deliveries'),
  jobs: await rows(t, 'jobs'),
  audit: await rows(t, 'audit_events'),
})

describe('subscribing an endpoint', () => {
  test('answers 201 with the endpoint and its whsec_ secret, which only a sealed form keeps', async () => {
    const s = await signUp(t)
    const res = await post(s.token, '/v1/webhooks', {
      url: PUBLIC_URL,
      events: ['document.ready', 'api_key.created'],
      description: ' CRM sync ',
    })
    expect(res.status).toBe(201)
    const hook = await res.json()
    expect(hook).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{20}$/),
      url: PUBLIC_URL,
      description: 'CRM sync',
      events: ['document.ready', 'api_key.created'],
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      consecutive_failures: 0,
      previous_secret_expires_at: null,
      last_delivery: null,
      created_at: t.clock.now().toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    })
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32)
    const stored = (await t.sql.get<Record<string, unknown>>(
      'SELECT * FROM webhook_endpoints WHERE id = ?',
      hook.id,
    ))!
    expect(stored.secret_sealed).toStartWith('v1.')
    expect(JSON.stringify(stored)).not.toContain(hook.secret.slice(6))
    const { secret, ...shown } = hook
    const listed = await (await get(s.token, '/v1/webhooks')).json()
    expect(listed).toEqual({ items: [shown], next_cursor: null })
    expect(await (await get(s.token, `/v1/webhooks/${hook.id}`)).json()).toEqual(shown)
    for (const text of [JSON.stringify(listed), JSON.stringify(t.log.lines)]) {
      expect(text).not.toContain(secret.slice(6))
    }
  })

  test('the URL is kept as the parser reads it: what is listed is what is reached', async () => {
    const s = await signUp(t)
    const res = await post(s.token, '/v1/webhooks', {
      url: 'HTTPS://93.184.216.34:443',
      events: ['sync.finished'],
    })
    expect((await res.json()).url).toBe('https://93.184.216.34/')
  })

  test('an audit row names the endpoint and its events, never the secret', async () => {
    const s = await signUp(t)
    const hook = await (
      await post(s.token, '/v1/webhooks', { url: PUBLIC_URL, events: ['sync.finished'] })
    ).json()
    const row = (await auditRows(t, 'webhook.created')).find((r) => r.target_id === hook.id)
    expect(row).toMatchObject({ workspace_id: s.workspaceId, actor_type: 'user', actor_id: s.userId })
    expect(JSON.parse(row!.details)).toEqual({ url: PUBLIC_URL, events: ['sync.finished'] })
    expect(row!.details).not.toContain(hook.secret.slice(6))
  })

  test('bad bodies are 422s naming the field, and write nothing', async () => {
    const s = await signUp(t)
    const before = await counts()
    const cases: [unknown, (string | number)[]][] = [
      [{ events: ['document.ready'] }, ['body', 'url']],
      [{ url: PUBLIC_URL }, ['body', 'events']],
      [{ url: PUBLIC_URL, events: [] }, ['body', 'events']],
      [{ url: PUBLIC_URL, events: ['document.exploded'] }, ['body', 'events', 0]],
      [{ url: PUBLIC_URL, events: ['sync.finished', 'sync.finished'] }, ['body', 'events', 1]],
      [{ url: PUBLIC_URL, events: ['sync.finished'], description: 'd'.repeat(501) }, ['body', 'description']],
      [{ url: 'hooks.example.com/x', events: ['sync.finished'] }, ['body', 'url']],
      [{ url: 'ftp://93.184.216.34/x', events: ['sync.finished'] }, ['body', 'url']],
      [{ url: 'http://93.184.216.34/x', events: ['sync.finished'] }, ['body', 'url']],
      [{ url: 'https://user:pw@93.184.216.34/x', events: ['sync.finished'] }, ['body', 'url']],
      [{ url: 'https://93.184.216.34/x#frag', events: ['sync.finished'] }, ['body', 'url']],
      [{ url: `https://93.184.216.34/${'x'.repeat(2048)}`, events: ['sync.finished'] }, ['body', 'url']],
      [{ url: 'https://93.184.216.34/a\nb', events: ['sync.finished'] }, ['body', 'url']],
      [{ url: 'https://93.184.216.34/a b', events: ['sync.finished'] }, ['body', 'url']],
    ]
    for (const [body, loc] of cases) {
      const found = await issues(await post(s.token, '/v1/webhooks', body), '/v1/webhooks')
      expect(found[0]?.loc).toEqual(loc)
    }
    const http = await issues(
      await post(s.token, '/v1/webhooks', { url: 'http://93.184.216.34/x', events: ['sync.finished'] }),
      '/v1/webhooks',
    )
    expect(http[0]?.msg).toBe(
      'Must be an https URL (plain http is allowed only when the operator sets webhooks.allow_http)',
    )
    expect(await counts()).toEqual(before)
  })

  test('link-local, metadata, loopback and private destinations are refused with egress_denied, writing nothing', async () => {
    const s = await signUp(t)
    const before = await counts()
    const refused: [string, string][] = [
      ['https://169.254.169.254/latest/meta-data', 'a cloud metadata address'],
      ['https://[::ffff:169.254.169.254]/', 'a cloud metadata address'],
      ['https://[fd00:ec2::254]/', 'a cloud metadata address'],
      ['https://metadata.google.internal/computeMetadata/v1/', 'a cloud metadata address'],
      ['https://169.254.10.1/', 'a link-local address'],
      ['https://[fe80::1]/', 'a link-local address'],
      [
        'https://127.0.0.1:8080/',
        "loopback or this server's own address, allowed only by webhooks.allow_loopback",
      ],
      [
        'https://2130706433/',
        "loopback or this server's own address, allowed only by webhooks.allow_loopback",
      ],
      ['https://[::1]/', "loopback or this server's own address, allowed only by webhooks.allow_loopback"],
      ['https://10.1.2.3/', 'a private network address, allowed only by webhooks.allow_private_networks'],
      ['https://192.168.0.10/', 'a private network address, allowed only by webhooks.allow_private_networks'],
      [
        'https://[fd12:3456::1]/',
        'a private network address, allowed only by webhooks.allow_private_networks',
      ],
      ['https://0.0.0.0/', 'an unspecified, broadcast or multicast address'],
    ]
    for (const [url, why] of refused) {
      const message = await expectError(
        await post(s.token, '/v1/webhooks', { url, events: ['sync.finished'] }),
        '/v1/webhooks',
        422,
        'egress_denied',
      )
      expect(message).toEndWith(`(${why}).`)
    }
    expect(await counts()).toEqual(before)
  })

  test('a workspace has at most 20 endpoints: the 21st is 409 webhook_limit_reached', async () => {
    const s = await signUp(t)
    for (let i = 0; i < 20; i++) {
      expect(
        (await post(s.token, '/v1/webhooks', { url: PUBLIC_URL, events: ['sync.finished'] })).status,
      ).toBe(201)
    }
    const before = await counts()
    await expectError(
      await post(s.token, '/v1/webhooks', { url: PUBLIC_URL, events: ['sync.finished'] }),
      '/v1/webhooks',
      409,
      'webhook_limit_reached',
      'A workspace may have at most 20 webhook endpoints.',
    )
    expect(await counts()).toEqual(before)
    // Pages of the house: newest first, a cursor to the next.
    const first = await (await get(s.token, '/v1/webhooks?limit=15')).json()
    expect(first.items).toHaveLength(15)
    const second = await (await get(s.token, `/v1/webhooks?limit=15&cursor=${first.next_cursor}`)).json()
    expect(second.items).toHaveLength(5)
    expect(second.next_cursor).toBeNull()
    const ids = [...first.items, ...second.items].map((h: { id: string }) => h.id)
    expect(new Set(ids).size).toBe(20)
  })

  test('an Idempotency-Key runs the create once and refuses a reuse, so the secret is never stored', async () => {
    const s = await signUp(t)
    const headers = { 'idempotency-key': 'hook-once' }
    const body = { url: PUBLIC_URL, events: ['sync.finished'] }
    expect((await post(s.token, '/v1/webhooks', body, headers)).status).toBe(201)
    await expectError(
      await post(s.token, '/v1/webhooks', body, headers),
      '/v1/webhooks',
      409,
      'idempotency_key_reused',
    )
    expect(await rows(t, 'webhook_endpoints', `workspace_id = '${s.workspaceId}'`)).toBe(1)
  })
})

describe('deleting, enabling and testing', () => {
  test('DELETE answers 204, takes the deliveries with it, and is audited; a second is 404', async () => {
    const s = await signUp(t)
    const hook = await (
      await post(s.token, '/v1/webhooks', { url: PUBLIC_URL, events: ['api_key.created'] })
    ).json()
    await mintKey(t, s.token, ['query'])
    expect((await post(s.token, `/v1/webhooks/${hook.id}/test`)).status).toBe(202)
    expect(await rows(t, 'webhook_deliveries', `endpoint_id = '${hook.id}'`)).toBe(2)
    const res = await t.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', headers: bearer(s.token) })
    expect(res.status).toBe(204)
    expect(await rows(t, 'webhook_endpoints', `id = '${hook.id}'`)).toBe(0)
    expect(await rows(t, 'webhook_deliveries', `endpoint_id = '${hook.id}'`)).toBe(0)
    // Its queued jobs are canceled, not left to find nothing.
    expect(await rows(t, 'jobs', `subject_id = '${hook.id}' AND status = 'pending'`)).toBe(0)
    const row = (await auditRows(t, 'webhook.deleted')).find((r) => r.target_id === hook.id)
    expect(JSON.parse(row!.details)).toEqual({ url: PUBLIC_URL })
    await expectError(
      await t.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', headers: bearer(s.token) }),
      '/v1/webhooks',
      404,
      'not_found',
    )
  })

  test('a test send queues a webhook.test delivery; enabling an enabled endpoint changes nothing', async () => {
    const s = await signUp(t)
    const hook = await (
      await post(s.token, '/v1/webhooks', { url: PUBLIC_URL, events: ['sync.finished'] })
    ).json()
    const res = await post(s.token, `/v1/webhooks/${hook.id}/test`)
    expect(res.status).toBe(202)
    const queued = await res.json()
    expect(queued).toEqual({
      delivery_id: expect.stringMatching(/^msg_[0-9A-Za-z]{20}$/),
      event_type: 'webhook.test',
      status: 'pending',
    })
    const deliveries = await (await get(s.token, `/v1/webhooks/${hook.id}/deliveries`)).json()
    expect(deliveries).toEqual({
      items: [
        {
          id: queued.delivery_id,
          event_type: 'webhook.test',
          status: 'pending',
          attempts: [],
          next_attempt_at: t.clock.now().toISOString(),
          created_at: t.clock.now().toISOString(),
        },
      ],
      next_cursor: null,
    })
    const before = await rows(t, 'audit_events')
    const enabled = await post(s.token, `/v1/webhooks/${hook.id}/enable`)
    expect(enabled.status).toBe(200)
    expect((await enabled.json()).enabled).toBe(true)
    expect(await rows(t, 'audit_events')).toBe(before)
  })

  test('a member and a key without the admin scope are refused; another workspace gets 404', async () => {
    const s = await signUp(t)
    const other = await signUp(t)
    const hook = await (
      await post(s.token, '/v1/webhooks', { url: PUBLIC_URL, events: ['sync.finished'] })
    ).json()
    const query = await mintKey(t, s.token, ['query', 'ingest'])
    await expectError(await get(query.key, '/v1/webhooks'), '/v1/webhooks', 403, 'missing_scope')
    for (const path of [`/v1/webhooks/${hook.id}`, `/v1/webhooks/${hook.id}/deliveries`]) {
      await expectError(await get(other.token, path), path, 404, 'not_found')
    }
    expect((await (await get(other.token, '/v1/webhooks')).json()).items).toEqual([])
  })
})

describe('the destination guard', () => {
  const config = loadConfig({ env: {}, readFile: () => null }).webhooks

  test('judges a name again at every send: one that resolves to the metadata address later is refused then', async () => {
    const answers = [['93.184.216.34'], ['169.254.169.254']]
    const d = new Destinations(config, async () => answers.shift() ?? [])
    expect(await d.check('https://hooks.example.com/x')).toEqual(['93.184.216.34'])
    const later = await d.check('https://hooks.example.com/x').catch((e) => e)
    expect(later).toBeInstanceOf(EgressDenied)
    expect((later as EgressDenied).reason).toBe('metadata')
  })

  test('each send is judged again: once the name resolves to the metadata address, nothing is sent', async () => {
    const r = receiver()
    try {
      const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`
      r.secret = secret
      const answers = [['127.0.0.1'], ['169.254.169.254']]
      const open = { ...config, allow_http: true, allow_loopback: true }
      const sender = new Sender(open, new Destinations(open, async () => answers.shift() ?? []), 'test')
      const url = r.url.replace('127.0.0.1', 'hooks.example.test')
      const send = () =>
        sender.send(url, [secret], { id: 'msg_1', at: new Date(), body: '{}' }, new AbortController().signal)
      expect(await send()).toMatchObject({ ok: true, statusCode: 200 })
      const refused = await send()
      expect(refused).toMatchObject({ ok: false, statusCode: null })
      expect(refused.error).toEndWith('(a cloud metadata address).')
      expect(r.received).toHaveLength(1)
    } finally {
      r.stop()
    }
  })

  test('a redirect is not followed: the attempt fails and its target gets nothing', async () => {
    const [r, elsewhere] = [receiver(), receiver()]
    try {
      const open = { ...config, allow_http: true, allow_loopback: true }
      const sender = new Sender(open, new Destinations(open), 'test')
      const secret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`
      r.secret = secret
      r.plan({ status: 307, location: elsewhere.url })
      const out = await sender.send(
        r.url,
        [secret],
        { id: 'msg_2', at: new Date(), body: '{}' },
        new AbortController().signal,
      )
      expect(out).toMatchObject({
        ok: false,
        statusCode: 307,
        error: 'HTTP 307 (redirects are not followed)',
      })
      expect(elsewhere.received).toHaveLength(0)
    } finally {
      r.stop()
      elsewhere.stop()
    }
  })

  test('a name resolving to a private address is refused unless allow_private_networks', async () => {
    const resolve = async () => ['10.0.0.7']
    const strict = await new Destinations(config, resolve).check('https://hooks.corp/x').catch((e) => e)
    expect((strict as EgressDenied).reason).toBe('private')
    const open = new Destinations({ ...config, allow_private_networks: true }, resolve)
    expect(await open.check('https://hooks.corp/x')).toEqual(['10.0.0.7'])
  })
})
