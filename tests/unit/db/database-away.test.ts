import { describe, expect, test } from 'bun:test'
import { createServer } from 'node:net'
import { SQL } from 'bun'
import { databaseAway } from '../../../src/platform/db/database-away'
import { ApiError } from '../../../src/platform/errors/errors'
import { errorResponse } from '../../../src/platform/http/render'
import { testPostgres } from '../../helpers/postgres'

// A request that finds the database unreachable is answered 503 with a delay to retry after, not a
// 500: with the security reads made through to the database on every request, a fleet whose database
// is away fails closed and says so (docs/scale-out.md, "Loss of a replica, of the database"). The
// errors are the real client's, against a port nothing listens on and a real PostgreSQL.

/** A loopback port free a moment ago: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (e) {
    return e
  }
  throw new Error('expected an error')
}

const pg = await testPostgres()

describe('the database away', () => {
  test('a connection refused is the database away: 503 with Retry-After, on both styles', async () => {
    const sql = new SQL(`postgres://engram@127.0.0.1:${await closedPort()}/engram`, { max: 1 })
    const e = await errorOf(() => sql`SELECT 1`)
    expect(databaseAway(e)).toBe(true)
    for (const style of ['v1', 'frozen'] as const) {
      const res = errorResponse(e, style, 'req_1')
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('2')
    }
    const body = (await errorResponse(e, 'v1', 'req_1').json()) as { error: { code: string } }
    expect(body.error.code).toBe('service_unavailable')
    await sql.close()
  })

  test.skipIf(!pg.available)(
    'a statement the database refuses is not: a 500 that tells nothing',
    async () => {
      if (!pg.available) return
      const sql = new SQL(await pg.freshDatabase(), { max: 1 })
      const e = await errorOf(() => sql`SELECT * FROM no_such_table`)
      expect(databaseAway(e)).toBe(false)
      const res = errorResponse(e, 'v1', 'req_1')
      expect(res.status).toBe(500)
      expect(await res.text()).not.toContain('no_such_table')
      await sql.close()
    },
  )

  test('other errors are not, and API errors keep their own status', () => {
    expect(databaseAway(new Error('boom'))).toBe(false)
    expect(databaseAway('ERR_POSTGRES_CONNECTION_CLOSED')).toBe(false)
    expect(errorResponse(new ApiError('bad_request'), 'v1', 'req_1').status).toBe(400)
  })
})
