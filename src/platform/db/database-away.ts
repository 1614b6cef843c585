import { sql } from 'drizzle-orm'
import { rawRows } from './raw'
import type { Store } from './store'

/** Resolves once the database answers a trivial statement (a readiness probe); rejects as it fails. */
export async function databaseAnswers(store: Store): Promise<void> {
  await rawRows(store, sql`SELECT 1 AS one`)
}

/**
 * Whether an error says the database cannot be reached now, rather than that a statement was wrong:
 * Bun's PostgreSQL client failing to connect or losing its connection (`ERR_POSTGRES_CONNECTION_*`),
 * or the server refusing sessions while it starts, stops or is full (SQLSTATE class 08, 57P01–57P03,
 * 53300). A request that meets one is answered 503 with a delay to retry after (http/render.ts):
 * the fleet fails closed, and clients retry, rather than read a 500 as a fault of their request.
 */
export function databaseAway(e: unknown): boolean {
  if (!(e instanceof Error)) return false
  const { code, errno } = e as { code?: unknown; errno?: unknown }
  if (typeof code === 'string' && /^ERR_POSTGRES_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT)/.test(code))
    return true
  const state = typeof errno === 'string' ? errno : null
  return state !== null && (state.startsWith('08') || /^57P0[123]$/.test(state) || state === '53300')
}
