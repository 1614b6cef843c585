// Server folders are granted per workspace (`sources.folder_roots`): one workspace never reaches a
// folder granted to another, or to none, whatever path it types.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ConnectorEnv, SourceChange } from '../../../src/features/sources/connectors/connector'
import { folderKind, grantedRoots } from '../../../src/features/sources/connectors/folder'
import { ManualClock } from '../../../src/platform/clock/clock'
import { type ConfigError, loadConfig } from '../../../src/platform/config/config.load'
import { memoryLogger } from '../../../src/platform/log/log'
import { EgressGuard } from '../../../src/platform/net/egress'

// <tmp>/tenants/ws_a/{a.txt, notes/n.txt}    granted to ws_a by the template
// <tmp>/tenants/ws_b/b-private.md            granted to ws_b by the template
// <tmp>/tenants/ws_ab/ab.txt                 a name that starts like ws_a's
// <tmp>/common/s.txt                         granted to ws_c by name, to nobody else
let tmp = ''
let tenants = ''
let common = ''

function env(folderRoots: string): ConnectorEnv {
  const guard = new EgressGuard({ denyPrivateNetworks: false })
  return {
    config: { ...loadConfig({ env: {}, readFile: () => null }).sources, folder_roots: folderRoots },
    fetch: guard.fetch,
    checkHost: (h) => guard.check(h),
    clock: new ManualClock(),
    log: memoryLogger(),
  }
}

const grants = () => `*=${tenants}/{workspace_id}, ws_c=${common}`

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    return `ok ${await p}`
  } catch (e) {
    return (e as { code: string }).code
  }
}

async function paths(changes: AsyncIterable<SourceChange>): Promise<string[]> {
  const out: string[] = []
  for await (const c of changes) if (c.kind === 'file') out.push(c.file.path)
  return out.sort()
}

function write(path: string, body: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, body)
}

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'engram-grants-')))
  tenants = join(tmp, 'tenants')
  common = join(tmp, 'common')
  write(join(tenants, 'ws_a', 'a.txt'), 'mine')
  write(join(tenants, 'ws_a', 'notes', 'n.txt'), 'my notes')
  write(join(tenants, 'ws_b', 'b-private.md'), "tenant B's secret")
  write(join(tenants, 'ws_ab', 'ab.txt'), 'not A')
  write(join(common, 's.txt'), 'for ws_c')
  // Links ws_a could plant inside its own folder (through a share it writes to), pointing at B's.
  symlinkSync(join(tenants, 'ws_b'), join(tenants, 'ws_a', 'to-b'))
  symlinkSync(join(tenants, 'ws_b', 'b-private.md'), join(tenants, 'ws_a', 'b-link.md'))
})

afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('grants', () => {
  test('a workspace reaches the folder its template names and the folders granted to it by name', async () => {
    expect(await folderKind.folder(join(tenants, 'ws_a'), env(grants()), 'ws_a')).toBe(join(tenants, 'ws_a'))
    expect(await folderKind.folder(join(tenants, 'ws_a', 'notes'), env(grants()), 'ws_a')).toBe(
      join(tenants, 'ws_a', 'notes'),
    )
    expect(await folderKind.folder(common, env(grants()), 'ws_c')).toBe(common)
  })

  test("another workspace's folder is refused however the path is written", async () => {
    const e = env(grants())
    for (const raw of [
      join(tenants, 'ws_b'),
      `${tenants}/ws_a/../ws_b`,
      `${tenants}/ws_a/notes/../../ws_b/`,
      join(tenants, 'ws_a', 'to-b'),
      join(tenants, 'WS_B'),
      join(tenants, 'ws_ab'),
      `${tenants}/ws_a/../ws_ab`,
      tenants,
      common,
      '/',
    ]) {
      expect([raw, await outcome(folderKind.folder(raw, e, 'ws_a'))]).toEqual([raw, 'root_not_allowed'])
    }
  })

  test('a folder granted to nobody, or any folder without a workspace, is refused; no grant, nothing', async () => {
    expect(await outcome(folderKind.folder(common, env(grants()), 'ws_d'))).toBe('root_not_allowed')
    expect(await outcome(folderKind.folder(join(tenants, 'ws_a'), env(grants())))).toBe('root_not_allowed')
    expect(await outcome(folderKind.folder(join(tenants, 'ws_a'), env(''), 'ws_a'))).toBe('root_not_allowed')
    // A template whose directory the operator has not made for this workspace admits nothing.
    expect(await outcome(folderKind.folder(join(tenants, 'ws_e'), env(grants()), 'ws_e'))).toBe(
      'root_not_allowed',
    )
  })

  test('a grant names a workspace exactly: not another case, not a prefix', async () => {
    const e = env(`ws_a=${join(tenants, 'ws_a')}`)
    expect(await outcome(folderKind.folder(join(tenants, 'ws_a'), e, 'WS_A'))).toBe('root_not_allowed')
    expect(await outcome(folderKind.folder(join(tenants, 'ws_a'), e, 'ws_ab'))).toBe('root_not_allowed')
    expect(await outcome(folderKind.folder(join(tenants, 'ws_a'), e, 'ws_a'))).toBe(
      `ok ${join(tenants, 'ws_a')}`,
    )
  })

  test('a missing folder is folder_not_found only inside the workspace’s own grant', async () => {
    const e = env(grants())
    expect(await outcome(folderKind.folder(join(tenants, 'ws_a', 'nope'), e, 'ws_a'))).toBe(
      'folder_not_found',
    )
    // Whether B's folder has such a subfolder is none of A's business: the same refusal as any.
    expect(await outcome(folderKind.folder(join(tenants, 'ws_b', 'nope'), e, 'ws_a'))).toBe(
      'root_not_allowed',
    )
  })

  test("a listing of the workspace's folder skips links into another's, and reading one is refused", async () => {
    const e = env(grants())
    const connector = folderKind.open({
      settings: {},
      secrets: {},
      folder: join(tenants, 'ws_a'),
      env: e,
      workspaceId: 'ws_a',
    })
    expect(await paths((await connector.list(null)).changes)).toEqual(['a.txt', 'notes/n.txt'])
    const file = {
      id: 'b-link.md',
      path: 'b-link.md',
      version: 'v',
      size: 1,
      modifiedAt: null,
      contentType: null,
    }
    expect(await outcome(connector.read(file, 1000))).toBe('permission_denied')
  })

  test('a source opened for another workspace (a row moved between tenants) reads nothing', async () => {
    const connector = folderKind.open({
      settings: {},
      secrets: {},
      folder: join(tenants, 'ws_b'),
      env: env(grants()),
      workspaceId: 'ws_a',
    })
    expect(await outcome(connector.validate())).toBe('root_not_allowed')
    expect(await outcome(connector.list(null))).toBe('root_not_allowed')
  })

  test('grantedRoots reads grants by workspace and puts the id in the template; an odd id gets nothing', () => {
    const roots = 'ws_a=/srv/a, *=/srv/t/{workspace_id}/docs ,ws_b=/srv/b'
    expect(grantedRoots(roots, 'ws_a')).toEqual(['/srv/a', '/srv/t/ws_a/docs'])
    expect(grantedRoots(roots, 'ws_z')).toEqual(['/srv/t/ws_z/docs'])
    for (const odd of ['', 'ws_a/../ws_b', '../etc', 'ws_', 'WS A'])
      expect(grantedRoots(roots, odd)).toEqual([])
    expect(grantedRoots(roots, undefined)).toEqual([])
  })
})

describe('configuration', () => {
  const load = (roots: string) =>
    loadConfig({ env: { ENGRAM_SOURCES_FOLDER_ROOTS: roots }, readFile: () => null }).sources.folder_roots

  test('grants by name and templates are accepted; empty is the default', () => {
    expect(loadConfig({ env: {}, readFile: () => null }).sources.folder_roots).toBe('')
    expect(load('ws_abc=/srv/a, *=/srv/t/{workspace_id}')).toBe('ws_abc=/srv/a, *=/srv/t/{workspace_id}')
  })

  test('a bare path, which once granted every workspace, stops the start with what to write instead', () => {
    for (const roots of ['/srv/docs', 'ws_a=/srv/a,/srv/docs', '*=/srv/common', 'ws_a=srv/a']) {
      let problems: string[] = []
      try {
        load(roots)
      } catch (e) {
        problems = (e as ConfigError).problems
      }
      expect(problems).toHaveLength(1)
      expect(problems[0]).toStartWith('ENGRAM_SOURCES_FOLDER_ROOTS: expected comma-separated grants')
      expect(problems[0]).toContain('ws_<id>=/srv/docs')
      expect(problems[0]).toContain('*=/srv/docs/{workspace_id}')
    }
  })
})
