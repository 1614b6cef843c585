// Where the tests' objects go. On SQLite (`npm test`): local files under each data dir, the default.
// In the PostgreSQL pass (ENGRAM_TEST_DATABASE=postgres, `npm run test:postgres`): an S3 bucket on a
// local s3rver, configured through the real settings (ENGRAM_STORAGE=s3 and ENGRAM_S3_*), so the
// product's own S3 driver is the one the pass runs. The server is the one scripts/test-postgres.ts
// started for the whole pass (ENGRAM_TEST_S3_ENDPOINT); a test file run alone in the pass starts one
// of its own on first use, stopped when its process ends (standins/s3rver-process.ts).
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import { type S3rverProcess, startS3rverProcess } from './standins/s3rver-process'

let own: S3rverProcess | undefined

/** Whether this test process runs the PostgreSQL pass, whose objects go to S3. */
export function s3Pass(): boolean {
  return process.env.ENGRAM_TEST_DATABASE === 'postgres'
}

/**
 * The storage settings of an app or binary on `dataDir` in this pass: none on SQLite (local files),
 * S3 in the PostgreSQL pass. The bucket is named after the data dir, so a process started again on
 * the same data dir finds its objects, and two data dirs never share one; the S3 driver creates it
 * on first use, as it would on a real server.
 */
export function testStorageEnv(dataDir: string): Record<string, string> {
  if (!s3Pass()) return {}
  return {
    ENGRAM_STORAGE: 's3',
    ENGRAM_S3_ENDPOINT: s3Endpoint(),
    ENGRAM_S3_BUCKET: `engram-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 40)}`,
    // s3rver's built-in account.
    ENGRAM_S3_ACCESS_KEY: 'S3RVER',
    ENGRAM_S3_SECRET_KEY: 'S3RVER',
  }
}

/** The pass's server: the script's, else one started for this process on first use. */
function s3Endpoint(): string {
  const given = process.env.ENGRAM_TEST_S3_ENDPOINT
  if (given) return given
  own ??= startS3rverProcess()
  return own.endpoint
}
