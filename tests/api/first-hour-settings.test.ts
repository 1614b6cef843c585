import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { baseUrlWarning, listenError, loopbackOnly } from '../../src/cli/serve'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { authApp, bearer, signUp } from './accounts.fixture'

// Issue 34, "small things that stop people": what the server tells a new operator and the console
// about its own settings: which kinds of source a workspace can connect, where links point, and
// what to do when the port is taken.

const apps: TestApp[] = []
const dirs: string[] = []
afterAll(() => {
  for (const t of apps) t.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const app = (env: Record<string, string> = {}) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}

describe('GET /v1/source-kinds', () => {
  test('a server folder is off until the operator grants the workspace one; the network kinds are on', async () => {
    const t = app()
    const { token } = await signUp(t)
    const res = await t.request('/v1/source-kinds', { headers: bearer(token) })
    expect(res.status).toBe(200)
    const { kinds } = (await res.json()) as {
      kinds: { kind: string; enabled: boolean; reason: string | null }[]
    }
    expect(kinds.map((k) => k.kind).sort()).toEqual(['folder', 'gdrive', 's3', 'sharepoint'])
    const folder = kinds.find((k) => k.kind === 'folder')!
    expect(folder.enabled).toBe(false)
    expect(folder.reason).toContain('ENGRAM_SOURCES_FOLDER_ROOTS')
    expect(kinds.filter((k) => k.kind !== 'folder').every((k) => k.enabled && k.reason === null)).toBe(true)
    expect((await t.request('/v1/source-kinds')).status).toBe(401)
  })

  test('a granted folder that exists turns it on for that workspace only', async () => {
    const tenants = mkdtempSync(join(tmpdir(), 'engram-kinds-'))
    dirs.push(tenants)
    const t = app({ ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}` })
    const a = await signUp(t, { email: 'a@example.com' })
    const b = await signUp(t, { email: 'b@example.com' })
    mkdirSync(join(tenants, a.workspaceId))
    const folderOf = async (token: string) => {
      const body = (await (await t.request('/v1/source-kinds', { headers: bearer(token) })).json()) as {
        kinds: { kind: string; enabled: boolean }[]
      }
      return body.kinds.find((k) => k.kind === 'folder')!.enabled
    }
    expect(await folderOf(a.token)).toBe(true)
    // Granted by the template, but its directory was never made: it admits nothing.
    expect(await folderOf(b.token)).toBe(false)
  })
})

describe('where links point', () => {
  test('/auth/config says whether ENGRAM_BASE_URL is set and what links start with, whatever Host says', async () => {
    const unset = await (
      await app().request('/v1/auth/config', { headers: { host: 'evil.example.net' } })
    ).json()
    expect(unset).toMatchObject({ base_url_configured: false, link_base_url: 'http://localhost:8080' })
    const set = await (
      await app({ ENGRAM_BASE_URL: 'https://docs.acme.example/' }).request('/v1/auth/config', {
        headers: { host: 'evil.example.net' },
      })
    ).json()
    expect(set).toMatchObject({ base_url_configured: true, link_base_url: 'https://docs.acme.example' })
  })

  const config = (env: Record<string, string>) => loadConfig({ env, readFile: () => null })

  test('start-up warns, naming ENGRAM_BASE_URL, only when none is set and others can reach the server', () => {
    expect(baseUrlWarning(config({}))).toEqual({
      level: 'warn',
      msg: expect.stringContaining('Set ENGRAM_BASE_URL to the address people use'),
    })
    expect(baseUrlWarning(config({}))?.msg).toContain('start with http://localhost:8080')
    expect(baseUrlWarning(config({ ENGRAM_HOST: '::' }))).not.toBeNull()
    expect(baseUrlWarning(config({ ENGRAM_HOST: '192.0.2.10' }))).not.toBeNull()
    expect(baseUrlWarning(config({ ENGRAM_HOST: '127.0.0.1' }))).toBeNull()
    expect(baseUrlWarning(config({ ENGRAM_HOST: 'localhost' }))).toBeNull()
    expect(baseUrlWarning(config({ ENGRAM_HOST: '::1' }))).toBeNull()
    expect(baseUrlWarning(config({ ENGRAM_BASE_URL: 'https://docs.acme.example' }))).toBeNull()
    expect(loopbackOnly('127.8.9.1')).toBe(true)
    expect(loopbackOnly('0.0.0.0')).toBe(false)
  })
})

test('a port already in use is one line naming --port and ENGRAM_PORT', () => {
  const busy = Object.assign(new Error('Failed to start server. Is port 8080 in use?'), {
    code: 'EADDRINUSE',
  })
  const e = listenError(busy, { host: '0.0.0.0', port: 8080 }) as Error & { exitCode: number }
  expect(e.message).toBe(
    'port 8080 is already in use (0.0.0.0:8080): stop what listens there, or start on another port with --port 8081 or ENGRAM_PORT=8081.',
  )
  expect(e.exitCode).toBe(1)
  const other = new Error('something else')
  expect(listenError(other, { host: '0.0.0.0', port: 8080 })).toBe(other)
})
