import { describe, expect, spyOn, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { skipOrRequire, startPostgres } from '../../helpers/postgres'

// Without PostgreSQL, `npm test` still runs: the tests that need it are skipped with the reason
// printed. CI sets ENGRAM_TEST_POSTGRES=required, and then a missing PostgreSQL fails the run.

describe('the tests’ PostgreSQL', () => {
  test('with no binaries it says why, and the tests skip with that reason printed', async () => {
    const none = await startPostgres(null)
    expect(none).toEqual({ available: false, reason: expect.stringContaining('no PostgreSQL binaries') })
    const warn = spyOn(console, 'warn').mockImplementation(() => {})
    try {
      expect(skipOrRequire(none, undefined)).toBe(none)
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining('PostgreSQL tests skipped: no PostgreSQL binaries'),
      )
    } finally {
      warn.mockRestore()
    }
  })

  test('with binaries that cannot make a cluster it says why', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'engram-no-pg-'))
    try {
      const broken = await startPostgres(empty)
      expect(broken.available).toBe(false)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test('when CI requires PostgreSQL, not having one fails instead of skipping', () => {
    expect(() => skipOrRequire({ available: false, reason: 'no binaries' }, 'required')).toThrow(
      'ENGRAM_TEST_POSTGRES=required, but no PostgreSQL could be started: no binaries',
    )
  })
})
