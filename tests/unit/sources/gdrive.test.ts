import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import {
  type ConnectorEnv,
  type SourceChange,
  type SourceConnector,
  SourceError,
  type SourceFile,
} from '../../../src/features/sources/connectors/connector'
import { gdriveKind } from '../../../src/features/sources/connectors/gdrive'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { createLogger } from '../../../src/platform/log/log'
import { EgressGuard } from '../../../src/platform/net/egress'
import { DriveStandin } from '../../helpers/standins/drive-standin'

const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
})
const EMAIL = 'engram@project.iam.gserviceaccount.com'
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

let drive: DriveStandin
let clock: ManualClock

beforeEach(() => {
  drive = DriveStandin.start()
  drive.addServiceAccount(EMAIL, keys.publicKey)
  drive.addOAuthClient('client-1', 'secret-1', 'refresh-1')
  clock = new ManualClock('2026-03-01T00:00:00Z')
})
afterEach(() => drive.stop())

function env(o: { apiUrl?: string; denyPrivate?: boolean } = {}): ConnectorEnv {
  // The stand-ins listen on loopback, which the operator must allow (sources.allow_loopback).
  const guard = new EgressGuard({ denyPrivateNetworks: o.denyPrivate ?? false, allowLoopback: true })
  const config = loadConfig({ env: {}, readFile: () => null }).sources
  return {
    config: {
      ...config,
      gdrive_api_url: o.apiUrl ?? drive.url,
      google_token_url: drive.tokenUrl,
      request_timeout_seconds: 5,
    },
    fetch: guard.fetch,
    checkHost: (u) => guard.check(u),
    clock,
    log: createLogger('silent'),
  }
}

const serviceAccount = {
  settings: { auth: 'service_account', client_email: EMAIL },
  secrets: { private_key: keys.privateKey },
}
const oauth = {
  settings: { auth: 'oauth', client_id: 'client-1' },
  secrets: { client_secret: 'secret-1', refresh_token: 'refresh-1' },
}

function open(
  folder: string,
  creds: typeof serviceAccount | typeof oauth = serviceAccount,
  e = env(),
): SourceConnector {
  return gdriveKind.open({ ...creds, folder, env: e })
}

/** The SourceError a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<SourceError> {
  try {
    await p
  } catch (e) {
    if (e instanceof SourceError) return e
    throw e
  }
  throw new Error('expected a SourceError')
}

async function collect(c: SourceConnector, cursor: string | null) {
  const listing = await c.list(cursor)
  const entries: SourceChange[] = []
  for await (const e of listing.changes) entries.push(e)
  return { complete: listing.complete, entries, next: listing.nextCursor() }
}

const files = (entries: SourceChange[]) =>
  entries.flatMap((e) => (e.kind === 'file' ? [e.file] : [])).sort((a, b) => a.path.localeCompare(b.path))
const removed = (entries: SourceChange[]) =>
  entries.flatMap((e) => (e.kind === 'removed' ? [e.id] : [])).sort()

describe('gdrive: folder and credentials', () => {
  test('a folder is a Drive id or root; anything else is an invalid folder', async () => {
    expect(await gdriveKind.folder('1AbC-def_GHIjklmnop', env())).toBe('1AbC-def_GHIjklmnop')
    expect(await gdriveKind.folder('root', env())).toBe('root')
    for (const bad of ['', 'short', '../etc', "x' in parents or '1", 'a/b/c/d/e/f/g/h']) {
      expect((await failure(gdriveKind.folder(bad, env()))).code).toBe('invalid_folder')
    }
  })

  test('each auth mode names the fields it lacks, and never a secret value', () => {
    let e: unknown
    try {
      gdriveKind.open({
        settings: { auth: 'oauth', client_id: 'client-1' },
        secrets: { client_secret: 's3cr3t' },
        folder: 'root',
        env: env(),
      })
    } catch (x) {
      e = x
    }
    expect(e).toBeInstanceOf(SourceError)
    expect((e as SourceError).code).toBe('bad_credentials')
    expect((e as SourceError).message).toContain('refresh_token')
    expect((e as SourceError).message).not.toContain('s3cr3t')
    expect(() =>
      gdriveKind.open({ settings: { auth: 'service_account' }, secrets: {}, folder: 'root', env: env() }),
    ).toThrow(/client_email, private_key/)
  })

  test('validate passes with a service account and with a refresh token', async () => {
    const folder = drive.addFolder('Team')
    await open(folder).validate()
    await open(folder, oauth).validate()
    await open('root').validate()
    // A key pasted as it appears inside the JSON key file, line breaks escaped.
    const escaped = { ...serviceAccount, secrets: { private_key: keys.privateKey.replace(/\n/g, '\\n') } }
    await open(folder, escaped).validate()
    expect(drive.requests.filter((r) => r.startsWith('POST /token'))).toHaveLength(4)
  })

  test('a key Google does not know, or a revoked refresh token, is bad credentials without echoing them', async () => {
    const folder = drive.addFolder('Team')
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    })
    const wrongKey = { ...serviceAccount, secrets: { private_key: other.privateKey } }
    const e1 = await failure(open(folder, wrongKey).validate())
    expect(e1.code).toBe('bad_credentials')
    expect(e1.message).not.toContain('PRIVATE KEY')
    const revoked = { ...oauth, secrets: { client_secret: 'secret-1', refresh_token: 'revoked-token' } }
    const e2 = await failure(open(folder, revoked).validate())
    expect(e2.code).toBe('bad_credentials')
    expect(e2.message).not.toContain('revoked-token')
    const wrongSecret = { ...oauth, secrets: { client_secret: 'nope-secret', refresh_token: 'refresh-1' } }
    expect((await failure(open(folder, wrongSecret).validate())).code).toBe('bad_credentials')
    const garbled = {
      ...serviceAccount,
      secrets: { private_key: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----' },
    }
    expect((await failure(open(folder, garbled).validate())).code).toBe('bad_credentials')
  })

  test('a folder that does not exist, or is a file, is folder_not_found', async () => {
    expect((await failure(open('idDoesNotExist42').validate())).code).toBe('folder_not_found')
    const file = drive.addFile('a.txt', drive.rootId, 'hello')
    expect((await failure(open(file).validate())).code).toBe('folder_not_found')
  })

  test('a 403 from Drive is permission_denied; a 403 rate-limit reason is rate_limited', async () => {
    const folder = drive.addFolder('Team')
    // google-auth-library refreshes its token once on a 403 and asks again: Drive refuses both.
    drive.failNext(403, { reason: 'insufficientFilePermissions' })
    drive.failNext(403, { reason: 'insufficientFilePermissions' })
    expect((await failure(open(folder).validate())).code).toBe('permission_denied')
    drive.failNext(403, { reason: 'userRateLimitExceeded' })
    drive.failNext(403, { reason: 'userRateLimitExceeded' })
    expect((await failure(open(folder).validate())).code).toBe('rate_limited')
  })

  test('a host the guard refuses is egress_denied before anything is sent; a closed port is unreachable', async () => {
    const folder = drive.addFolder('Team')
    const denied = await failure(open(folder, serviceAccount, env({ denyPrivate: true })).validate())
    expect(denied.code).toBe('egress_denied')
    expect(drive.requests).toHaveLength(0)
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const deadUrl = `http://127.0.0.1:${closed.port}`
    closed.stop(true)
    expect((await failure(open(folder, serviceAccount, env({ apiUrl: deadUrl })).validate())).code).toBe(
      'unreachable',
    )
  })
})

describe('gdrive: listing', () => {
  test('a full listing walks subfolders across pages and returns the start page token taken before it', async () => {
    drive.maxPageSize = 2
    const team = drive.addFolder('Team')
    drive.addFile('a.txt', team, 'alpha')
    drive.addFile('b.pdf', team, '%PDF-1', 'application/pdf')
    drive.addFile('c.txt', team, 'gamma')
    const sub = drive.addFolder('Specs', team)
    drive.addFile('d.txt', sub, 'delta')
    const deep = drive.addFolder('Old/Archive', sub)
    drive.addFile('e.txt', deep, 'epsilon')
    drive.trash(drive.addFile('trashed.txt', team, 'x'))
    drive.addFile('outside.txt', drive.rootId, 'not in the folder')
    const token = String(1000 + drive.changes.length)

    const { complete, entries, next } = await collect(open(team), null)
    expect(complete).toBe(true)
    expect(next).toBe(token)
    expect(files(entries).map((f) => f.path)).toEqual([
      'a.txt',
      'b.pdf',
      'c.txt',
      'Specs/d.txt',
      'Specs/Old_Archive/e.txt',
    ])
    const a = files(entries)[0] as SourceFile
    expect(a).toMatchObject({ size: 5, contentType: 'text/plain', modifiedAt: expect.any(Number) })
    expect(a.version).toMatch(/^[0-9a-f]{32}$/)
    expect(drive.requests.some((r) => r.includes('pageToken=2'))).toBe(true)
  })

  test('Google Docs are listed as .docx at their revision and read through export; forms are skipped', async () => {
    const team = drive.addFolder('Team')
    const doc = drive.addNative('Plan', team, 'document', 'DOCX BYTES')
    drive.addNative('Survey', team, 'form')
    drive.addNative('Link', team, 'shortcut')
    drive.addNative('Budget', team, 'spreadsheet', 'XLSX BYTES')
    const c = open(team)
    const listed = files((await collect(c, null)).entries)
    expect(listed.map((f) => f.path)).toEqual(['Budget.xlsx', 'Plan.docx'])
    const plan = listed[1] as SourceFile
    expect(plan).toMatchObject({ id: doc, version: 'v1', size: -1, contentType: DOCX })
    expect(new TextDecoder().decode(await c.read(plan, 1000))).toBe('DOCX BYTES')
    expect(drive.requests.some((r) => r.startsWith(`GET /drive/v3/files/${doc}/export?mimeType=`))).toBe(true)
    drive.update(doc, 'NEW DOCX')
    expect(files((await collect(c, null)).entries)[1]?.version).toBe('v2')
  })

  test('the changes feed reports adds, edits, deletions, trashes and moves out, with paths', async () => {
    drive.maxPageSize = 2
    const team = drive.addFolder('Team')
    const sub = drive.addFolder('Specs', team)
    const edited = drive.addFile('edited.txt', sub, 'v1')
    const deleted = drive.addFile('deleted.txt', team, 'bye')
    const trashed = drive.addFile('trashed.txt', team, 'bye')
    const movedOut = drive.addFile('moved.txt', team, 'bye')
    const elsewhere = drive.addFolder('Elsewhere')
    const c = open(team)
    const first = await collect(c, null)

    const added = drive.addFile('new.txt', sub, 'fresh')
    drive.update(edited, 'v2')
    drive.remove(deleted)
    drive.trash(trashed)
    drive.move(movedOut, elsewhere)
    drive.addFile('unrelated.txt', elsewhere, 'not ours')
    const delta = await collect(c, first.next)
    expect(delta.complete).toBe(false)
    expect(files(delta.entries).map((f) => [f.id, f.path])).toEqual([
      [edited, 'Specs/edited.txt'],
      [added, 'Specs/new.txt'],
    ])
    expect(removed(delta.entries)).toEqual(expect.arrayContaining([deleted, trashed, movedOut].sort()))
    expect(delta.next).toBe(String(1000 + drive.changes.length))
    expect((await collect(c, delta.next)).entries).toEqual([])
  })

  test('a folder renamed, moved out or trashed carries its files with it', async () => {
    const team = drive.addFolder('Team')
    const specs = drive.addFolder('Specs', team)
    const inSpecs = drive.addFile('s.txt', specs, 's')
    const old = drive.addFolder('Old', team)
    const inOld = drive.addFile('o.txt', old, 'o')
    const c = open(team)
    const first = await collect(c, null)

    drive.rename(specs, 'Design')
    drive.move(old, drive.rootId)
    const delta = await collect(c, first.next)
    expect(files(delta.entries).map((f) => [f.id, f.path])).toEqual([[inSpecs, 'Design/s.txt']])
    expect(removed(delta.entries)).toEqual([inOld])

    drive.trash(specs)
    const later = await collect(c, delta.next)
    expect(files(later.entries)).toEqual([])
    expect(removed(later.entries)).toEqual([inSpecs])
  })

  test('a changes token Drive no longer accepts is cursor_expired', async () => {
    const team = drive.addFolder('Team')
    const first = await collect(open(team), null)
    drive.addFile('later.txt', team, 'x')
    drive.oldestPageToken = 1000 + drive.changes.length
    expect((await failure(open(team).list(first.next))).code).toBe('cursor_expired')
  })
})

describe('gdrive: tokens, limits and reads', () => {
  test('an access token refused as expired is refreshed and the call retried', async () => {
    const team = drive.addFolder('Team')
    drive.addFile('a.txt', team, 'alpha')
    for (const creds of [serviceAccount, oauth]) {
      drive.expireNextToken = true
      const before = drive.requests.length
      const { entries } = await collect(open(team, creds), null)
      expect(files(entries).map((f) => f.path)).toEqual(['a.txt'])
      expect(drive.requests.slice(before).filter((r) => r === 'POST /token')).toHaveLength(2)
    }
  })

  test('a 429 is rate_limited with its Retry-After in seconds or as a date; a 503 is source_error', async () => {
    const team = drive.addFolder('Team')
    drive.failNext(429, { retryAfter: '7' })
    const e1 = await failure(open(team).validate())
    expect([e1.code, e1.retryAfterMs, e1.transient]).toEqual(['rate_limited', 7000, true])
    drive.failNext(429, { retryAfter: new Date(clock.now().getTime() + 30_000).toUTCString() })
    expect((await failure(open(team).validate())).retryAfterMs).toBe(30_000)
    drive.failNext(503, { retryAfter: '2' })
    const e3 = await failure(open(team).list(null))
    expect([e3.code, e3.retryAfterMs]).toEqual(['source_error', 2000])
    drive.failNext(500)
    expect([(await failure(open(team).validate())).retryAfterMs]).toEqual([null])
  })

  test('a busy token endpoint is reported at once, not retried by the library', async () => {
    const team = drive.addFolder('Team')
    for (const creds of [serviceAccount, oauth]) {
      drive.failNextToken(503, { retryAfter: '4' })
      const before = drive.requests.length
      const e = await failure(open(team, creds).validate())
      expect([e.code, e.retryAfterMs]).toEqual(['source_error', 4000])
      expect(drive.requests.slice(before)).toEqual(['POST /token'])
    }
  })

  test('read returns the bytes, refuses past maxBytes, and a file gone since listing is file_not_found', async () => {
    const team = drive.addFolder('Team')
    const big = 'x'.repeat(5000)
    drive.addFile('big.txt', team, big)
    const gone = drive.addFile('gone.txt', team, 'soon gone')
    const trashed = drive.addFile('trashed.txt', team, 'soon trashed')
    const c = open(team)
    const listed = files((await collect(c, null)).entries)
    const [bigFile, goneFile, trashedFile] = listed as [SourceFile, SourceFile, SourceFile]
    expect(new TextDecoder().decode(await c.read(bigFile, 5000))).toBe(big)
    expect((await failure(c.read(bigFile, 4999))).code).toBe('file_too_large')
    drive.remove(gone)
    drive.trash(trashed)
    expect((await failure(c.read(goneFile, 100))).code).toBe('file_not_found')
    expect((await failure(c.read(trashedFile, 100))).code).toBe('file_not_found')
  })

  test('a download larger than its listed size stops at maxBytes', async () => {
    const team = drive.addFolder('Team')
    const doc = drive.addNative('Huge', team, 'document', new Uint8Array(200_000))
    const c = open(team)
    const [file] = files((await collect(c, null)).entries)
    expect(file?.id).toBe(doc)
    expect((await failure(c.read(file as SourceFile, 10_000))).code).toBe('file_too_large')
  })
})

describe('gdrive: shared drives', () => {
  test('a folder in a shared drive is listed with the drive named in every call, and root is the drive', async () => {
    const sharedDrive = drive.addFolder('Engineering drive')
    drive.addFile('spec.txt', sharedDrive, 'spec')
    const creds = {
      ...serviceAccount,
      settings: { ...serviceAccount.settings, shared_drive_id: sharedDrive },
    }
    const c = open('root', creds)
    const { entries, next } = await collect(c, null)
    expect(files(entries).map((f) => f.path)).toEqual(['spec.txt'])
    drive.addFile('later.txt', sharedDrive, 'later')
    expect(files((await collect(c, next)).entries).map((f) => f.path)).toEqual(['later.txt'])
    const calls = drive.requests.filter((r) => r.startsWith('GET /drive/v3/'))
    expect(calls.every((r) => r.includes('supportsAllDrives=true'))).toBe(true)
    expect(
      calls.filter((r) => r.startsWith('GET /drive/v3/files?')).every((r) => r.includes('corpora=drive')),
    ).toBe(true)
    expect(
      calls
        .filter((r) => !r.startsWith('GET /drive/v3/files/'))
        .every((r) => r.includes(`driveId=${sharedDrive}`)),
    ).toBe(true)
  })
})
