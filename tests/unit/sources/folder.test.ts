import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type {
  ConnectorEnv,
  SourceChange,
  SourceFile,
} from '../../../src/features/sources/connectors/connector'
import { folderKind } from '../../../src/features/sources/connectors/folder'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { memoryLogger } from '../../../src/platform/log/log'
import { EgressGuard } from '../../../src/platform/net/egress'

// The layout every test reads (created once):
//   <tmp>/roots/allowed/docs/{a.txt, sub/b.md, sub/deeper/c.txt}
//   <tmp>/roots/allowed/other/o.txt
//   <tmp>/roots/second/s.txt
//   <tmp>/outside/secret.txt
let tmp = ''
let allowed = ''
let docs = ''
let outside = ''

/** The workspace the tests' folders are granted to. */
const WS = 'ws_test'

/** Roots as paths, granted to WS (`sources.folder_roots` entries `ws_test=<path>`). */
function env(roots = `${allowed}, ${join(tmp, 'roots', 'second')}`): ConnectorEnv {
  const guard = new EgressGuard({ denyPrivateNetworks: false })
  const grants = roots
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => `${WS}=${r}`)
    .join(',')
  return {
    config: { ...loadConfig({ env: {}, readFile: () => null }).sources, folder_roots: grants },
    fetch: guard.fetch,
    checkHost: (h) => guard.check(h),
    clock: new ManualClock(),
    log: memoryLogger(),
  }
}

/** The folder kind's check of a folder for WS. */
function folderFor(raw: string, e: ConnectorEnv): Promise<string> {
  return folderKind.folder(raw, e, WS)
}

function write(path: string, body: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, body)
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as { code: string }).code
  }
  return 'none'
}

async function files(changes: AsyncIterable<SourceChange>): Promise<SourceFile[]> {
  const out: SourceFile[] = []
  for await (const c of changes) if (c.kind === 'file') out.push(c.file)
  return out.sort((a, b) => a.path.localeCompare(b.path))
}

async function opened(folder: string, e = env()) {
  return folderKind.open({
    workspaceId: WS,
    settings: {},
    secrets: {},
    folder: await folderFor(folder, e),
    env: e,
  })
}

/** A temporary folder source of its own under the allowed root, for tests that change files. */
function scratch(name: string): string {
  const dir = join(allowed, name)
  mkdirSync(dir, { recursive: true })
  return dir
}

beforeAll(() => {
  // realpath: on some systems the temporary directory itself is behind a symlink.
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'engram-folder-')))
  allowed = join(tmp, 'roots', 'allowed')
  docs = join(allowed, 'docs')
  outside = join(tmp, 'outside')
  write(join(docs, 'a.txt'), 'alpha')
  write(join(docs, 'sub', 'b.md'), '# bravo')
  write(join(docs, 'sub', 'deeper', 'c.txt'), 'charlie')
  write(join(allowed, 'other', 'o.txt'), 'other')
  write(join(tmp, 'roots', 'second', 's.txt'), 'second root')
  write(join(outside, 'secret.txt'), 'do not read')
})

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
})

describe('folder (where a source may point)', () => {
  test('a root itself, a folder inside one and one inside a second root are allowed, resolved', async () => {
    expect(await folderFor(allowed, env())).toBe(allowed)
    expect(await folderFor(`${docs}/`, env())).toBe(docs)
    expect(await folderFor(join(tmp, 'roots', 'second'), env())).toBe(join(tmp, 'roots', 'second'))
  })

  test('a folder outside every root is root_not_allowed, and so is any folder when no root is configured', async () => {
    expect(await codeOf(folderFor(outside, env()))).toBe('root_not_allowed')
    expect(await codeOf(folderFor('/', env()))).toBe('root_not_allowed')
    expect(await codeOf(folderFor(docs, env('')))).toBe('root_not_allowed')
  })

  test('a root is a directory, not a name prefix: a sibling sharing its first letters is refused', async () => {
    mkdirSync(`${allowed}-evil`, { recursive: true })
    expect(await codeOf(folderFor(`${allowed}-evil`, env()))).toBe('root_not_allowed')
  })

  test('".." is resolved: one that stays inside is allowed, one that climbs out is refused', async () => {
    expect(await folderFor(join(docs, 'sub', '..', '..', 'other'), env())).toBe(join(allowed, 'other'))
    expect(await codeOf(folderFor(`${allowed}/../../outside`, env()))).toBe('root_not_allowed')
    expect(await codeOf(folderFor(`${docs}/../../../outside`, env()))).toBe('root_not_allowed')
  })

  test('a symlinked folder inside a root that points outside it is refused', async () => {
    symlinkSync(outside, join(allowed, 'escape'))
    expect(await codeOf(folderFor(join(allowed, 'escape'), env()))).toBe('root_not_allowed')
  })

  test('a missing folder inside a root is folder_not_found; outside the roots it is refused the same as any', async () => {
    expect(await codeOf(folderFor(join(allowed, 'nope'), env()))).toBe('folder_not_found')
    expect(await codeOf(folderFor(join(tmp, 'nope'), env()))).toBe('root_not_allowed')
  })

  test('a relative path or a file is invalid_folder', async () => {
    expect(await codeOf(folderFor('roots/allowed', env()))).toBe('invalid_folder')
    expect(await codeOf(folderFor(join(docs, 'a.txt'), env()))).toBe('invalid_folder')
  })

  test('validate re-checks the roots: a folder whose root was removed from configuration is refused', async () => {
    const connector = folderKind.open({
      workspaceId: WS,
      settings: {},
      secrets: {},
      folder: docs,
      env: env(join(tmp, 'roots', 'second')),
    })
    expect(await codeOf(connector.validate())).toBe('root_not_allowed')
    await (await opened(docs)).validate()
  })
})

describe('folder listing', () => {
  test('lists regular files recursively with paths relative to the folder', async () => {
    const listing = await (await opened(docs)).list(null)
    const listed = await files(listing.changes)
    expect(listing.complete).toBe(true)
    expect(listing.nextCursor()).toBeNull()
    expect(listed.map((f) => f.path)).toEqual(['a.txt', 'sub/b.md', 'sub/deeper/c.txt'])
    expect(listed[0]).toMatchObject({ id: 'a.txt', size: 5, contentType: null })
    expect(listed[0]!.modifiedAt).toBeNumber()
  })

  test('a version changes when a file is rewritten', async () => {
    const dir = scratch('versions')
    write(join(dir, 'v.txt'), 'one')
    const connector = await opened(dir)
    const [before] = await files((await connector.list(null)).changes)
    write(join(dir, 'v.txt'), 'three')
    const [after] = await files((await connector.list(null)).changes)
    expect(after!.version).not.toBe(before!.version)
  })

  test('symlinks are followed inside the folder and skipped when they lead outside it', async () => {
    const dir = scratch('links')
    write(join(dir, 'real', 'r.txt'), 'real')
    symlinkSync(join(dir, 'real', 'r.txt'), join(dir, 'file-link.txt'))
    symlinkSync(join(dir, 'real'), join(dir, 'dir-link'))
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'secret-link.txt'))
    symlinkSync(outside, join(dir, 'outside-dir'))
    symlinkSync(join(allowed, 'other', 'o.txt'), join(dir, 'other-root-file.txt'))
    symlinkSync(join(dir, 'missing'), join(dir, 'dangling'))
    symlinkSync(dir, join(dir, 'real', 'loop'))
    const listed = await files((await (await opened(dir)).list(null)).changes)
    expect(listed.map((f) => f.path)).toEqual(['dir-link/r.txt', 'file-link.txt', 'real/r.txt'])
  })
})

describe('folder read', () => {
  test('returns the bytes of a listed file', async () => {
    const connector = await opened(docs)
    const file = (await files((await connector.list(null)).changes)).find((f) => f.path === 'sub/b.md')!
    expect(new TextDecoder().decode(await connector.read(file, 100))).toBe('# bravo')
  })

  test('refuses a file over the limit, and one that grew past it since the listing', async () => {
    const dir = scratch('limits')
    write(join(dir, 'big.bin'), 'x'.repeat(600_000))
    const connector = await opened(dir)
    const [file] = await files((await connector.list(null)).changes)
    expect(await codeOf(connector.read(file!, 599_999))).toBe('file_too_large')
    expect((await connector.read(file!, 600_000)).byteLength).toBe(600_000)
    write(join(dir, 'big.bin'), 'x'.repeat(700_000))
    expect(await codeOf(connector.read(file!, 600_000))).toBe('file_too_large')
  })

  test('a file deleted since the listing is file_not_found', async () => {
    const dir = scratch('deleted')
    write(join(dir, 'gone.txt'), 'bye')
    const connector = await opened(dir)
    const [file] = await files((await connector.list(null)).changes)
    unlinkSync(join(dir, 'gone.txt'))
    expect(await codeOf(connector.read(file!, 100))).toBe('file_not_found')
  })

  test('a file swapped for a symlink to outside after the listing is refused', async () => {
    const dir = scratch('swapped')
    write(join(dir, 'doc.txt'), 'innocent')
    const connector = await opened(dir)
    const [file] = await files((await connector.list(null)).changes)
    unlinkSync(join(dir, 'doc.txt'))
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'doc.txt'))
    expect(await codeOf(connector.read(file!, 100))).toBe('permission_denied')
  })

  test('a directory swapped for a symlink to outside after the listing is refused', async () => {
    const dir = scratch('swapped-dir')
    write(join(dir, 'sub', 'secret.txt'), 'innocent')
    const connector = await opened(dir)
    const [file] = await files((await connector.list(null)).changes)
    rmSync(join(dir, 'sub'), { recursive: true })
    symlinkSync(outside, join(dir, 'sub'))
    expect(await codeOf(connector.read(file!, 100))).toBe('permission_denied')
  })

  test('a path that climbs with ".." is never read', async () => {
    const connector = await opened(docs)
    const file = {
      id: '../../../outside/secret.txt',
      path: 'x',
      version: 'v',
      size: 1,
      modifiedAt: null,
      contentType: null,
    }
    expect(await codeOf(connector.read(file, 100))).toBe('file_not_found')
  })
})
