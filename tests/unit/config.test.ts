import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { baseUrl, ConfigError, loadConfig, renderDefaultToml } from '../../src/platform/config/config.load'

const load = (env: Record<string, string> = {}, files: Record<string, string> = {}) =>
  loadConfig({ env, readFile: (p) => files[p] ?? null })

describe('configuration', () => {
  test('defaults match the documented contract', () => {
    const c = load()
    expect(c.server.host).toBe('0.0.0.0')
    expect(c.server.port).toBe(8080)
    expect(c.data.dir).toBe('./data')
    expect(c.accounts.signup_mode).toBe('invite')
    expect(c.accounts.registration).toBe('first')
    expect(c.accounts.default_plan).toBe('free')
    expect(c.email.transport).toBe('log')
    expect(c.storage.driver).toBe('local')
    expect(c.billing.mode).toBe('off')
    expect(c.llm.url).toBeNull()
    expect(c.security.rate_limits).toBe('on')
    expect(c.security.secret).toBeNull()
    expect(baseUrl(c)).toBe('http://localhost:8080')
  })

  test('the file overrides defaults and the environment overrides the file', () => {
    const file = '[server]\nport = 9000\nhost = "127.0.0.1"\n[accounts]\nsignup_mode = "open"\n'
    const fromFile = load({}, { 'config/default.toml': file })
    expect(fromFile.server.port).toBe(9000)
    expect(fromFile.accounts.signup_mode).toBe('open')
    const fromEnv = load({ ENGRAM_PORT: '9100' }, { 'config/default.toml': file })
    expect(fromEnv.server.port).toBe(9100)
    expect(fromEnv.server.host).toBe('127.0.0.1')
  })

  test('ENGRAM_CONFIG names another file, and a missing one is refused', () => {
    const c = load({ ENGRAM_CONFIG: '/etc/engram.toml' }, { '/etc/engram.toml': '[server]\nport = 7000\n' })
    expect(c.server.port).toBe(7000)
    expect(() => load({ ENGRAM_CONFIG: '/nowhere.toml' })).toThrow('ENGRAM_CONFIG names /nowhere.toml')
  })

  test('every problem is reported at once, naming where the bad value came from', () => {
    try {
      load(
        { ENGRAM_PORT: 'eighty', ENGRAM_SIGNUP_MODE: 'closed', ENGRAM_STORAGE: 's3' },
        { 'config/default.toml': '[server]\nnonsense = 1\n[oops]\n' },
      )
      throw new Error('expected a ConfigError')
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError)
      const problems = (e as ConfigError).problems
      expect(problems).toContain('ENGRAM_PORT: expected an integer, got "eighty"')
      expect(problems).toContain('ENGRAM_SIGNUP_MODE: expected one of invite, open, got "closed"')
      expect(problems).toContain('config/default.toml: unknown option server.nonsense')
      expect(problems).toContain('config/default.toml: unknown section [oops]')
    }
  })

  test('cross-field rules: s3 needs its endpoint and keys', () => {
    expect(() => load({ ENGRAM_STORAGE: 's3' })).toThrow(
      'storage.s3_endpoint is required when ENGRAM_STORAGE=s3',
    )
    const ok = load({
      ENGRAM_STORAGE: 's3',
      ENGRAM_S3_ENDPOINT: 'http://127.0.0.1:9000',
      ENGRAM_S3_BUCKET: 'b',
      ENGRAM_S3_ACCESS_KEY: 'a',
      ENGRAM_S3_SECRET_KEY: 's',
    })
    expect(ok.storage.driver).toBe('s3')
  })

  test('cross-field rules: a shared index needs a shared database and a bucket', () => {
    const s3 = {
      ENGRAM_STORAGE: 's3',
      ENGRAM_S3_ENDPOINT: 'http://127.0.0.1:9000',
      ENGRAM_S3_BUCKET: 'b',
      ENGRAM_S3_ACCESS_KEY: 'a',
      ENGRAM_S3_SECRET_KEY: 's',
    }
    const pg = { ENGRAM_DATABASE_URL: 'postgres://engram@127.0.0.1:5432/engram' }
    const problem = 'engine.shared_index needs data.database_url and ENGRAM_STORAGE=s3'
    expect(() => load({ ENGRAM_SHARED_INDEX: 'true' })).toThrow(problem)
    expect(() => load({ ENGRAM_SHARED_INDEX: 'true', ...s3 })).toThrow(problem)
    expect(() => load({ ENGRAM_SHARED_INDEX: 'true', ...pg })).toThrow(problem)
    expect(load({ ENGRAM_SHARED_INDEX: 'true', ...pg, ...s3 }).engine.shared_index).toBe(true)
  })

  test('a secret value is never echoed in an error', () => {
    expect(() => load({ ENGRAM_SECRET: 'short-secret' })).toThrow(
      'ENGRAM_SECRET: expected at least 32 characters, got (hidden)',
    )
  })

  test('invalid TOML is a clear error', () => {
    expect(() => load({}, { 'config/default.toml': '[server\nport=' })).toThrow('not valid TOML')
  })

  test('config/default.toml is generated from the definition and documents every option', () => {
    expect(readFileSync('config/default.toml', 'utf8')).toBe(renderDefaultToml())
    // The shipped file loads to exactly the built-in defaults.
    expect(load({}, { 'config/default.toml': renderDefaultToml() })).toEqual(load())
  })
})
