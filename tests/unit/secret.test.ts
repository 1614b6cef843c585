import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveSecret } from '../../src/cli/runtime'
import { loadConfig } from '../../src/platform/config/config.load'

describe('signing secret', () => {
  test('is generated into the data dir on first start, owner-only, and reused afterwards', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-secret-'))
    try {
      const config = loadConfig({ env: {}, readFile: () => null })
      const first = resolveSecret(config, dir)
      expect(first).toMatch(/^[A-Za-z0-9]{64}$/)
      expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600)
      expect(resolveSecret(config, dir)).toBe(first)
      expect(readFileSync(join(dir, 'secret'), 'utf8').trim()).toBe(first)
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  test('a configured secret wins and nothing is written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-secret-'))
    try {
      const secret = 'configured-secret-configured-secret-42'
      const config = loadConfig({ env: { ENGRAM_SECRET: secret }, readFile: () => null })
      expect(resolveSecret(config, dir)).toBe(secret)
      expect(() => statSync(join(dir, 'secret'))).toThrow()
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  test("with PostgreSQL none is generated: it must be configured, and the message names the data dir's own", () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-secret-'))
    try {
      const url = 'postgres://engram:hunter2@127.0.0.1:1/engram'
      const onPostgres = loadConfig({ env: { ENGRAM_DATABASE_URL: url }, readFile: () => null })
      expect(() => resolveSecret(onPostgres, dir)).toThrow(
        /^ENGRAM_SECRET must be set with ENGRAM_DATABASE_URL/,
      )
      expect(() => statSync(join(dir, 'secret'))).toThrow()
      // A data dir that generated one (a single binary moved with export-data) is told where it is.
      const own = resolveSecret(loadConfig({ env: {}, readFile: () => null }), dir)
      expect(() => resolveSecret(onPostgres, dir)).toThrow(
        `set ENGRAM_SECRET to the contents of ${join(dir, 'secret')}`,
      )
      let message = ''
      try {
        resolveSecret(onPostgres, dir)
      } catch (e) {
        message = (e as Error).message
      }
      expect(message).not.toContain(own)
      expect(message).not.toContain('hunter2')
      const secret = 'configured-secret-configured-secret-42'
      const both = loadConfig({
        env: { ENGRAM_DATABASE_URL: url, ENGRAM_SECRET: secret },
        readFile: () => null,
      })
      expect(resolveSecret(both, dir)).toBe(secret)
    } finally {
      rmSync(dir, { recursive: true })
    }
  })
})
