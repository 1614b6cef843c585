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
})
