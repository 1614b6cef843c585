// The `s3` kind: every object under a key prefix of one bucket on any S3-compatible server (AWS,
// MinIO, Ceph, R2, ...), read through the minio client. S3 keeps no change feed a client can
// follow, so every sync lists everything and compares versions (ETag and last-modified).
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Client } from 'minio'
import { EgressDenied } from '../../../platform/net/egress'
import {
  type ConnectorEnv,
  type ConnectorKind,
  type SourceChange,
  type SourceConnector,
  SourceError,
  type SourceFile,
} from './connector'
import { PageProgress } from './run'
import { clientFor, readCapped, within } from './s3-client'
import { asSourceError } from './s3-errors'

/** Printable ASCII without spaces: what access keys, secrets and session tokens are made of. */
const TOKEN = '^[\\x21-\\x7e]+$'

export const S3Settings = Type.Object(
  {
    endpoint: Type.String({
      pattern: '^https?://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?/?$',
      maxLength: 300,
      description:
        'Base URL of the S3 API, scheme, host and port only: https://s3.eu-west-1.amazonaws.com, http://minio.internal:9000.',
    }),
    bucket: Type.String({
      minLength: 3,
      maxLength: 63,
      pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$',
      description:
        'Bucket name: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit.',
    }),
    region: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        default: 'us-east-1',
        description:
          "The bucket's region, used to sign requests (us-east-1 when left out; MinIO accepts any).",
      }),
    ),
    path_style: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Address the bucket in the path (https://host/bucket/key, every S3-compatible server) rather than as a host name (https://bucket.host/key).',
      }),
    ),
  },
  { additionalProperties: false },
)

export const S3Secrets = Type.Object(
  {
    access_key: Type.String({ minLength: 1, maxLength: 128, pattern: TOKEN, description: 'Access key id.' }),
    secret_key: Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: TOKEN,
      description: 'Secret access key.',
    }),
    session_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        pattern: TOKEN,
        description: 'Session token of temporary credentials (STS), when the keys are temporary.',
      }),
    ),
  },
  { additionalProperties: false },
)

/** Longest key S3 allows, in bytes; a prefix is at most that. */
const MAX_KEY_BYTES = 1024

/** Checks and normalizes a key prefix: '' (the whole bucket), or segments ending with '/'. */
async function s3Folder(raw: string): Promise<string> {
  if (raw === '') return ''
  const invalid = (why: string) => new SourceError('invalid_folder', `The prefix ${why}.`)
  if (raw.startsWith('/')) throw invalid('must not start with "/"')
  if ([...raw].some((ch) => ch < ' ' || ch === '\x7f')) throw invalid('must not contain control characters')
  const prefix = raw.endsWith('/') ? raw : `${raw}/`
  // A `.` or `..` segment would make document paths that climb out of the folder; an empty one
  // (`a//b`) is a key no one means to type.
  if (
    prefix
      .slice(0, -1)
      .split('/')
      .some((s) => s === '' || s === '.' || s === '..')
  ) {
    throw invalid('must not contain empty, "." or ".." segments')
  }
  if (Buffer.byteLength(prefix) > MAX_KEY_BYTES) throw invalid(`must be at most ${MAX_KEY_BYTES} bytes`)
  return prefix
}

/** Settings or secrets the service should have checked already; a mismatch is a bug, not input. */
function parsed<T extends typeof S3Settings | typeof S3Secrets>(
  schema: T,
  raw: Record<string, unknown>,
): Static<T> {
  if (!Value.Check(schema, raw)) throw new Error('S3 connection fields do not match their schema.')
  return raw as Static<T>
}

/** Checks every host a request will reach: with host-style addressing the bucket is part of the name. */
async function guard(env: ConnectorEnv, s: Static<typeof S3Settings>): Promise<void> {
  try {
    await env.checkHost(s.endpoint)
    if (s.path_style === false) await env.checkHost(`${s.bucket}.${new URL(s.endpoint).hostname}`)
  } catch (e) {
    if (!(e instanceof EgressDenied)) throw e
    if (e.reason === 'unresolvable') throw new SourceError('unreachable', e.message)
    throw new SourceError('egress_denied', e.message)
  }
}

/**
 * A listed object as a source file. The path is the key without the prefix, as it is: a key that
 * is no valid document path (a `..` or `.` segment, `a//b`, a control character) keeps that path,
 * the sync refuses it and reports the key as a failed file, so the operator learns which object to
 * rename.
 */
function fileOf(
  prefix: string,
  o: { name: string; etag: string; size: number; lastModified: Date },
): SourceFile {
  const modifiedAt = o.lastModified.getTime()
  return {
    id: o.name,
    path: o.name.slice(prefix.length),
    version: `${o.etag}:${modifiedAt}`,
    size: o.size,
    modifiedAt: Number.isFinite(modifiedAt) ? modifiedAt : null,
    contentType: null,
  }
}

/** A page of ListObjectsV2 as the minio client returns it. */
type ListPage = Awaited<ReturnType<Client['listObjectsV2Query']>>

/**
 * Every object under the prefix. One page in memory at a time: the next is asked for only once
 * this one has been consumed. The run's checkpoint comes before every page, and a listing that
 * stops moving (empty pages on and on, a token sent before, keys that do not come in order) ends
 * with `no_progress`.
 */
async function* everything(
  page: (token: string) => Promise<ListPage>,
  prefix: string,
  env: ConnectorEnv,
): AsyncGenerator<SourceChange> {
  const progress = new PageProgress("The bucket's listing", env)
  let token = ''
  let last: Buffer | null = null
  do {
    progress.before()
    const listed = await page(token)
    for (const o of listed.objects) {
      if (o.name === undefined) continue
      // S3 lists keys in UTF-8 byte order: a key that does not come after the last went back.
      const key = Buffer.from(o.name)
      if (last && Buffer.compare(key, last) <= 0) throw progress.wentBack()
      last = key
      // Keys ending in '/' are the empty "directory markers" consoles create, not files.
      if (o.name.endsWith('/')) continue
      yield { kind: 'file', file: fileOf(prefix, o) }
    }
    if (listed.isTruncated && !listed.nextContinuationToken) {
      throw new SourceError(
        'source_error',
        'The S3 server cut a listing short without saying where to go on.',
      )
    }
    token = listed.isTruncated ? listed.nextContinuationToken : ''
    progress.after(listed.objects.length, token || null)
  } while (token)
}

function openS3(
  c: {
    settings: Record<string, unknown>
    secrets: Record<string, unknown>
    folder: string
    env: ConnectorEnv
  },
  pageSize: number,
): SourceConnector {
  const s = parsed(S3Settings, c.settings)
  const timeoutMs = c.env.config.request_timeout_seconds * 1000
  const access = { ...s, ...parsed(S3Secrets, c.secrets) }
  const failed = (e: unknown) => asSourceError(e, s.bucket)
  let made: Promise<Client> | null = null
  // A refusal of the endpoint by the guard (clientFor judges it) is a SourceError like the others.
  const client = () =>
    (made ??= clientFor(access, timeoutMs, c.env.checkHost, c.env.signal).catch((e) => {
      throw failed(e)
    }))
  const prefix = c.folder

  /** One page of the listing after `token` ('' for the first), within the request timeout and the run. */
  const page = async (token: string) =>
    within(
      timeoutMs,
      (await client()).listObjectsV2Query(s.bucket, prefix, token, '', pageSize, ''),
      c.env.signal,
    ).catch((e) => {
      throw failed(e)
    })

  return {
    async validate() {
      await guard(c.env, s)
      const page = await within(
        timeoutMs,
        (await client()).listObjectsV2Query(s.bucket, prefix, '', '', 1, ''),
      ).catch((e) => {
        throw failed(e)
      })
      // S3 has no folders: a prefix nothing starts with is most likely mistyped.
      if (prefix && page.objects.length === 0) {
        throw new SourceError(
          'folder_not_found',
          `No object in the bucket ${s.bucket} starts with the prefix.`,
        )
      }
    },

    async list() {
      await guard(c.env, s)
      return { complete: true, changes: everything(page, prefix, c.env), nextCursor: () => null }
    },

    async read(file, maxBytes) {
      if (!file.id.startsWith(prefix))
        throw new SourceError('file_not_found', 'The object is not under the prefix.')
      if (file.size > maxBytes)
        throw new SourceError('file_too_large', `The object is larger than ${maxBytes} bytes.`)
      c.env.checkpoint?.()
      await guard(c.env, s)
      try {
        return await readCapped(await (await client()).getObject(s.bucket, file.id), maxBytes, timeoutMs)
      } catch (e) {
        throw failed(e)
      }
    },
  }
}

/** The s3 kind listing `pageSize` keys a request (S3's most is 1000); tests page with less. */
export function s3KindWith(o: { pageSize: number }): ConnectorKind {
  return {
    kind: 's3',
    settings: S3Settings,
    secrets: S3Secrets,
    folder: (raw) => s3Folder(raw),
    open: (c) => openS3(c, o.pageSize),
  }
}

export const s3Kind: ConnectorKind = s3KindWith({ pageSize: 1000 })
