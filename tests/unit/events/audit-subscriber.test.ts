import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { AuditService } from '../../../src/features/audit/audit.service'
import { auditSubscriber } from '../../../src/features/audit/audit.subscribers'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { sqliteStore } from '../../../src/platform/db/store'
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'

// The audit log as a subscriber: one row per event however often it is delivered, dated by the event,
// each linked to the one before in its workspace's chain.

let dir = ''
let db: Db
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-audit-sub-'))
  db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
})
afterEach(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('audit subscriber', () => {
  test('a key event delivered twice writes one row, at the time of the event', async () => {
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const sub = auditSubscriber(new AuditService(sqliteStore(db), new Outbox(db, clock, seededRandom(1))))
    const event: DomainEvent<'key.revoked'> = {
      id: 'evt_abc',
      type: 'key.revoked',
      workspaceId: 'ws_1',
      occurredAt: Date.parse('2026-04-30T10:00:00Z'),
      payload: {
        keyId: 'key_1',
        name: 'laptop',
        prefix: 'ek_123456789',
        actor: { type: 'user', id: 'usr_1', ip: '10.0.0.1', requestId: 'req_1' },
      },
    }
    await sub.handle(event)
    clock.advance(60_000)
    await sub.handle(event)
    const rows = db.$client.query('SELECT * FROM audit_events').all()
    expect(rows).toEqual([
      {
        id: 'aud_abc',
        workspace_id: 'ws_1',
        actor_type: 'user',
        actor_id: 'usr_1',
        action: 'api_key.revoked',
        target_type: 'api_key',
        target_id: 'key_1',
        details: JSON.stringify({ name: 'laptop', prefix: 'ek_123456789' }),
        ip: '10.0.0.1',
        request_id: 'req_1',
        created_at: Date.parse('2026-04-30T10:00:00Z'),
        seq: 1,
        prev_hash: null,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ])
  })

  test('member events delivered twice write one row each, with the details the change wrote inline', async () => {
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const sub = auditSubscriber(new AuditService(sqliteStore(db), new Outbox(db, clock, seededRandom(1))))
    const actor = { type: 'api_key' as const, id: 'key_9', ip: '10.0.0.2', requestId: 'req_2' }
    const changed: DomainEvent<'member.changed'> = {
      id: 'evt_chg',
      type: 'member.changed',
      workspaceId: 'ws_1',
      occurredAt: Date.parse('2026-04-30T10:00:00Z'),
      payload: { userId: 'usr_2', email: 'b@example.com', from: 'member', role: 'admin', actor },
    }
    const removed: DomainEvent<'member.removed'> = {
      id: 'evt_rem',
      type: 'member.removed',
      workspaceId: 'ws_1',
      occurredAt: Date.parse('2026-04-30T11:00:00Z'),
      payload: { userId: 'usr_2', email: 'b@example.com', role: 'admin', actor },
    }
    for (const e of [changed, changed, removed, removed]) {
      await sub.handle(e)
      clock.advance(60_000)
    }
    const rows = db.$client.query('SELECT * FROM audit_events ORDER BY created_at').all()
    const row = { workspace_id: 'ws_1', actor_type: 'api_key', actor_id: 'key_9', target_type: 'user' }
    expect(rows).toEqual([
      {
        ...row,
        id: 'aud_chg',
        action: 'member.role_changed',
        target_id: 'usr_2',
        details: JSON.stringify({ email: 'b@example.com', from: 'member', to: 'admin' }),
        ip: '10.0.0.2',
        request_id: 'req_2',
        created_at: Date.parse('2026-04-30T10:00:00Z'),
        seq: 1,
        prev_hash: null,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        ...row,
        id: 'aud_rem',
        action: 'member.removed',
        target_id: 'usr_2',
        details: JSON.stringify({ email: 'b@example.com', role: 'admin' }),
        ip: '10.0.0.2',
        request_id: 'req_2',
        created_at: Date.parse('2026-04-30T11:00:00Z'),
        seq: 2,
        prev_hash: (rows[0] as { hash: string }).hash,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ])
  })
})
