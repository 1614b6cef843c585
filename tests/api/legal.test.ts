import { afterAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LegalService } from '../../src/features/legal/legal.service'
import { seededRandom } from '../../src/platform/crypto/random'
import type { TestApp } from '../helpers/app'
import { addMember, auditRows, authApp, bearer, expectError, mintKey, rows, signUp } from './accounts.fixture'

// Issue 37, legal acceptance: versioned documents shipped with the binary and replaceable by the
// operator; a workspace admin accepts the current version for the workspace, provably.

const apps: TestApp[] = []
const dirs: string[] = []
const app = (env: Record<string, string> = {}) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const sha = (s: string) => createHash('sha256').update(s).digest('hex')
const shipped = (name: string) => readFileSync(join(import.meta.dir, `../../assets/legal/${name}.md`), 'utf8')
const accept = (t: TestApp, token: string, json: unknown, peer?: string) =>
  t.request('/v1/legal/accept', { method: 'POST', headers: bearer(token), json, peer })

interface Doc {
  document: string
  version: string
  title: string
  text: string
  sha256: string
}

const read = async (t: TestApp, name: string) => {
  const res = await t.request(`/v1/legal/${name}`)
  expect(res.status).toBe(200)
  return (await res.json()) as Doc
}

describe('documents', () => {
  test('each document is public, versioned, and hashed over its exact text', async () => {
    const t = app()
    for (const name of ['terms', 'privacy', 'dpa']) {
      const doc = await read(t, name)
      expect(Object.keys(doc)).toEqual(['document', 'version', 'title', 'text', 'sha256'])
      expect(doc.document).toBe(name)
      expect(doc.version).toBe('2026-03-01')
      expect(doc.title).toContain('(template)')
      expect(doc.text).toContain('TEMPLATE')
      // The text is the file after its front matter, byte for byte.
      expect(shipped(name).endsWith(doc.text)).toBe(true)
      expect(doc.sha256).toBe(sha(doc.text))
    }
    await expectError(await t.request('/v1/legal/cookies'), '/v1/legal/cookies', 404, 'not_found')
  })

  test("an operator's folder replaces a document; the others stay the shipped templates", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-legal-'))
    dirs.push(dir)
    const text = '# Our terms\n\nBe kind.\n'
    writeFileSync(join(dir, 'terms.md'), `---\nversion: 7\ntitle: Acme Terms\n---\n${text}`)
    const t = app({ ENGRAM_LEGAL_DIR: dir })
    expect(await read(t, 'terms')).toEqual({
      document: 'terms',
      version: '7',
      title: 'Acme Terms',
      text,
      sha256: sha(text),
    })
    expect((await read(t, 'privacy')).version).toBe('2026-03-01')
  })

  test('a malformed replacement stops the app from being built', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-legal-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'dpa.md'), '# no front matter\n')
    expect(() => app({ ENGRAM_LEGAL_DIR: dir })).toThrow(/dpa\.md: a legal document opens with/)
  })
})

describe('acceptance', () => {
  test('status, accept, idempotent again, receipt, audit row', async () => {
    const t = app()
    const a = await signUp(t)
    const before = await t.request('/v1/legal/status', { headers: bearer(a.token) })
    expect(before.status).toBe(200)
    const status0 = (await before.json()) as { all_accepted: boolean; documents: Record<string, unknown>[] }
    expect(status0.all_accepted).toBe(false)
    const terms = await read(t, 'terms')
    expect(status0.documents[0]).toEqual({
      document: 'terms',
      version: terms.version,
      title: terms.title,
      sha256: terms.sha256,
      accepted: false,
      accepted_version: null,
      accepted_at: null,
    })
    await expectError(
      await t.request('/v1/legal/terms/receipt', { headers: bearer(a.token) }),
      '/v1/legal/terms/receipt',
      404,
      'not_found',
      'Acceptance not found.',
    )

    const res = await accept(t, a.token, { document: 'terms', version: terms.version }, '198.51.100.9')
    expect(res.status).toBe(200)
    const receipt = (await res.json()) as Record<string, unknown>
    expect(receipt).toEqual({
      id: expect.stringMatching(/^lga_/),
      document: 'terms',
      version: terms.version,
      title: terms.title,
      sha256: terms.sha256,
      accepted_by: { type: 'user', id: a.userId },
      accepted_at: '2026-03-01T12:00:00.000Z',
      address: '198.51.100.9',
      current: true,
      current_version: terms.version,
    })
    // The same version again: the first receipt, nothing new written.
    t.clock.advance(60_000)
    const again = await accept(t, a.token, { document: 'terms', version: terms.version })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(receipt)
    expect(await rows(t, 'legal_acceptances')).toBe(1)

    const got = await t.request('/v1/legal/terms/receipt', { headers: bearer(a.token) })
    expect(await got.json()).toEqual(receipt)

    const audit = await auditRows(t, 'legal.accepted')
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ workspace_id: a.workspaceId, actor_type: 'user', actor_id: a.userId })
    expect(audit[0]!.target_id).toBe('terms')
    expect(JSON.parse(audit[0]!.details)).toMatchObject({ version: terms.version, sha256: terms.sha256 })

    const status1 = (await (await t.request('/v1/legal/status', { headers: bearer(a.token) })).json()) as {
      all_accepted: boolean
      documents: { document: string; accepted: boolean; accepted_at: string | null }[]
    }
    expect(status1.documents.map((d) => [d.document, d.accepted])).toEqual([
      ['terms', true],
      ['privacy', false],
      ['dpa', false],
    ])
    expect(status1.documents[0]!.accepted_at).toBe('2026-03-01T12:00:00.000Z')
  })

  test('firstUnaccepted names the next document until all are accepted', async () => {
    const t = app()
    const a = await signUp(t)
    const legal = t.services.legal
    expect(await legal.firstUnaccepted(a.workspaceId)).toEqual({
      document: 'terms',
      version: '2026-03-01',
      accept_url: '/v1/legal/accept',
    })
    for (const document of ['terms', 'privacy']) {
      expect((await accept(t, a.token, { document, version: '2026-03-01' })).status).toBe(200)
    }
    expect((await legal.firstUnaccepted(a.workspaceId))?.document).toBe('dpa')
    expect((await accept(t, a.token, { document: 'dpa', version: '2026-03-01' })).status).toBe(200)
    expect(await legal.firstUnaccepted(a.workspaceId)).toBeNull()
    const s = (await (await t.request('/v1/legal/status', { headers: bearer(a.token) })).json()) as {
      all_accepted: boolean
    }
    expect(s.all_accepted).toBe(true)
  })

  test('refusals write nothing: stale version, unknown document, bad body, a member, a key without admin', async () => {
    const t = app()
    const a = await signUp(t)
    const member = await addMember(t, a.token)
    const queryKey = await mintKey(t, a.token, ['query'])
    const P = '/v1/legal/accept'
    const stale = await accept(t, a.token, { document: 'terms', version: '2025-01-01' })
    expect(stale.status).toBe(409)
    expect(((await stale.json()) as { error: unknown }).error).toMatchObject({
      code: 'legal_version_outdated',
      message: 'Version 2025-01-01 of terms is not the current one; the current version is 2026-03-01.',
      details: { document: 'terms', current_version: '2026-03-01' },
    })
    await expectError(await accept(t, a.token, { document: 'eula', version: '1' }), P, 404, 'not_found')
    await expectError(await accept(t, a.token, { document: 'terms' }), P, 422, 'validation_error')
    await expectError(
      await accept(t, member.token, { document: 'terms', version: '2026-03-01' }),
      P,
      403,
      'admin_required',
    )
    const keyRes = await accept(t, queryKey.key, { document: 'terms', version: '2026-03-01' })
    expect(keyRes.status).toBe(403)
    await expectError(await t.request(P, { method: 'POST', json: {} }), P, 401, 'unauthorized')
    expect(await rows(t, 'legal_acceptances')).toBe(0)
    expect(await auditRows(t, 'legal.accepted')).toHaveLength(0)
    // A member reads the workspace's status (and its receipts), it just cannot accept.
    expect((await t.request('/v1/legal/status', { headers: bearer(member.token) })).status).toBe(200)
  })

  test('an admin key accepts; another workspace sees no receipt of it', async () => {
    const t = app()
    const a = await signUp(t)
    const b = await signUp(t)
    const key = await mintKey(t, a.token, ['admin'])
    const res = await accept(t, key.key, { document: 'privacy', version: '2026-03-01' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { accepted_by: unknown }).accepted_by).toEqual({
      type: 'api_key',
      id: key.id,
    })
    const P = '/v1/legal/privacy/receipt'
    await expectError(await t.request(P, { headers: bearer(b.token) }), P, 404, 'not_found')
    const s = (await (await t.request('/v1/legal/status', { headers: bearer(b.token) })).json()) as {
      documents: { accepted: boolean }[]
    }
    expect(s.documents.every((d) => !d.accepted)).toBe(true)
  })

  test('a new version must be accepted again; the old receipt stays, marked not current', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-legal-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'terms.md'), '---\nversion: 1\ntitle: T\n---\nOne.\n')
    const t = app({ ENGRAM_LEGAL_DIR: dir })
    const a = await signUp(t)
    expect((await accept(t, a.token, { document: 'terms', version: '1' })).status).toBe(200)
    // The operator publishes version 2: a restarted server reads it over the same database.
    writeFileSync(join(dir, 'terms.md'), '---\nversion: 2\ntitle: T\n---\nTwo.\n')
    const events = t.events.outbox
    const later = new LegalService({ store: t.store, clock: t.clock, random: seededRandom(7), events }, dir)
    expect(await later.firstUnaccepted(a.workspaceId)).toEqual({
      document: 'terms',
      version: '2',
      accept_url: '/v1/legal/accept',
    })
    const { row, current } = await later.receipt(a.workspaceId, 'terms')
    expect([row.version, row.sha256, current.version]).toEqual(['1', sha('One.\n'), '2'])
    const admin = { kind: 'session', workspaceId: a.workspaceId, userId: a.userId, role: 'admin' } as const
    const principal = { ...admin, scopes: null, keyId: null, corpusIds: null }
    const caller = { ip: '127.0.0.1', requestId: 'req_test' }
    await expect(later.accept(principal, 'terms', '1', caller)).rejects.toThrow(/current version is 2/)
    expect((await later.accept(principal, 'terms', '2', caller)).sha256).toBe(sha('Two.\n'))
    expect((await later.firstUnaccepted(a.workspaceId))?.document).toBe('privacy')
    expect(await rows(t, 'legal_acceptances')).toBe(2)
  })
})
