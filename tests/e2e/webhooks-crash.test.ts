import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { receiver } from '../api/webhooks.fixture'
import { type RunningBinary, signUpOn, startBinary } from '../helpers/binary'

// Issue 36: "a delivery pending when the compiled executable is killed with SIGKILL arrives after
// restart". The receiver holds the first request, so the kill lands while the attempt is in flight
// (nothing recorded of it yet); the next process resumes the dead one's job at once (a ten-minute
// lease, so only the dead-owner check can resume it in time) and the message arrives, with the
// same webhook-id and a valid signature.

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'engram-webhooks-crash-')))
const r = receiver()
let server: RunningBinary | null = null

afterAll(async () => {
  r.stop()
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Waits (polling, bounded) until `check` gives a value: the server settles in its own process. */
async function until<T>(check: () => Promise<T | null>, what: string, tries = 500): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const got = await check()
    if (got !== null) return got
    await Bun.sleep(20)
  }
  throw new Error(`timed out waiting for ${what}`)
}

const start = () =>
  startBinary({
    cwd: dir,
    env: {
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_JOB_LEASE_SECONDS: '600',
      ENGRAM_WEBHOOKS_ALLOW_HTTP: 'true',
      ENGRAM_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      // Longer than the test holds the request: the kill, not a timeout, ends the first attempt.
      ENGRAM_WEBHOOKS_TIMEOUT_MS: '60000',
      ENGRAM_LOG_LEVEL: 'info',
    },
  })

test('a delivery in flight when the server is killed with SIGKILL arrives after the restart', async () => {
  server = await start()
  const auth = await signUpOn(server.url, 'webhooks-crash@example.com', 'Crash')
  const post = async (url: string, path: string, json: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    })
  const created = await post(server.url, '/v1/webhooks', { url: r.url, events: ['api_key.created'] })
  expect(created.status).toBe(201)
  const hook = (await created.json()) as { id: string; secret: string }
  r.secret = hook.secret

  r.plan('hang')
  const key = await post(server.url, '/v1/api-keys', { name: 'CI', scopes: ['query'] })
  expect(key.status).toBe(200)
  const keyId = ((await key.json()) as { id: string }).id
  await r.arrived(1)
  server.proc.kill('SIGKILL')
  await server.proc.exited
  server = null
  r.release()
  const first = r.received[0]!
  expect(first.rejected).toBeNull()

  // What the dead process left: the delivery pending, no attempt recorded, its job held by the dead owner.
  const db = new Database(join(dir, 'data', 'engram.db'), { readonly: true })
  const left = db
    .query<{ status: string; attempts: number }, [string]>(
      'SELECT status, attempts FROM webhook_deliveries WHERE id = ?',
    )
    .get(first.id)
  const job = db
    .query<{ status: string }, [string]>(
      "SELECT status FROM jobs WHERE kind = 'webhook.deliver' AND subject_id = ?",
    )
    .get(hook.id)
  db.close()
  expect(left).toEqual({ status: 'pending', attempts: 0 })
  expect(job).toEqual({ status: 'running' })

  server = await start()
  const s = server
  await s.waitForLine((l) => l.msg === 'jobs resumed from a process that stopped')
  await r.arrived(2)
  const again = r.received[1]!
  expect(again.rejected).toBeNull()
  expect(again.status).toBe(200)
  expect(again.id).toBe(first.id)
  expect(again.body).toBe(first.body)
  expect(again.payload).toMatchObject({ type: 'api_key.created', data: { id: keyId, name: 'CI' } })
  expect(s.lines.some((l) => l.msg === 'jobs recovered after an expired lease')).toBe(false)

  // The delivery is settled as one attempt (the killed one left no record), and the secret is in no log line.
  type Delivery = { id: string; status: string; attempts: unknown[] }
  const d = await until(async () => {
    const res = await fetch(`${s.url}/v1/webhooks/${hook.id}/deliveries`, { headers: auth })
    const [latest] = ((await res.json()) as { items: Delivery[] }).items
    return latest?.status === 'succeeded' ? latest : null
  }, 'the delivery recorded as succeeded')
  expect(d.id).toBe(first.id)
  expect(d.attempts).toHaveLength(1)
  expect(JSON.stringify(s.lines)).not.toContain(hook.secret.slice(6))
}, 120_000)
