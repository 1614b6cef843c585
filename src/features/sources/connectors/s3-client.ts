// The minio client as the s3 kind uses it: retries off, and every request and body bounded in time.
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Readable } from 'node:stream'
import type { Client } from 'minio'
import { judgedLookup } from '../../../platform/net/egress'
import { concatChunks } from '../../../platform/storage/streams'
import { SourceError } from './connector'

/** A request that went quiet for longer than `sources.request_timeout_seconds`. */
export class RequestTimeout extends Error {
  override name = 'RequestTimeout'
  readonly code = 'ETIMEDOUT'
}

/**
 * An http(s) module whose requests fail when no answer has begun within `ms`, connecting included.
 * (Bun's socket timeouts do not fire, so a timer does it.) Bodies have their own limits: `within`
 * for listings, `readCapped`'s idle timer for objects.
 */
function timedTransport(
  base: typeof http | typeof https,
  ms: number,
  lookup: LookupFunction,
  signal?: AbortSignal,
): Pick<typeof http, 'request'> {
  const request = ((options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void) => {
    // Names are resolved by the outbound guard and the socket goes to an address it judged, so a
    // DNS answer that changes after the check (rebinding) cannot aim the request elsewhere.
    // The run's signal ends the request when the run stops (canceled, source deleted, out of time).
    const req = base.request({ ...options, lookup, ...(signal ? { signal } : {}) }, (res) => {
      clearTimeout(timer)
      callback?.(res)
    })
    const timer = setTimeout(() => req.destroy(new RequestTimeout(`No answer within ${ms} ms.`)), ms)
    req.once('close', () => clearTimeout(timer))
    return req
  }) as typeof http.request
  return { request }
}

/** `work`, or a RequestTimeout when it takes longer than `ms`, or the signal's reason once it aborts. */
export async function within<T>(ms: number, work: Promise<T>, signal?: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  let onAbort = () => {}
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RequestTimeout(`No answer within ${ms} ms.`)), ms)
    onAbort = () => reject(signal?.reason)
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/** What a client needs from a connection's settings and secrets. */
export interface S3Access {
  endpoint: string
  region?: string
  path_style?: boolean
  access_key: string
  secret_key: string
  session_token?: string
}

/**
 * The client for one connection; retries are off because the sync retries with the source's own
 * delays. The library is loaded by the first S3 source a server syncs, not at start-up. `check` is
 * the outbound guard (ConnectorEnv.checkHost): the endpoint is judged here, before any client
 * exists, because an IP literal never goes through the lookup that judges names on every connect.
 */
export async function clientFor(
  s: S3Access,
  timeoutMs: number,
  check: (host: string) => Promise<string[]>,
  signal?: AbortSignal,
): Promise<Client> {
  await check(s.endpoint)
  const { Client } = await import('minio')
  const url = new URL(s.endpoint)
  const useSSL = url.protocol === 'https:'
  return new Client({
    endPoint: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: s.access_key,
    secretKey: s.secret_key,
    ...(s.session_token ? { sessionToken: s.session_token } : {}),
    region: s.region ?? 'us-east-1',
    pathStyle: s.path_style ?? true,
    transport: timedTransport(useSSL ? https : http, timeoutMs, judgedLookup(check), signal),
    retryOptions: { disableRetry: true },
  })
}

/** Bytes of the streamed body, refused past `maxBytes`; a body idle for `idleMs` fails as unreachable. */
export async function readCapped(body: Readable, maxBytes: number, idleMs: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let size = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const idle = () => {
    clearTimeout(timer)
    timer = setTimeout(() => body.destroy(new RequestTimeout(`No data for ${idleMs} ms.`)), idleMs)
  }
  try {
    idle()
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      idle()
      size += chunk.byteLength
      if (size > maxBytes)
        throw new SourceError('file_too_large', `The object is larger than ${maxBytes} bytes.`)
      chunks.push(chunk)
    }
  } finally {
    clearTimeout(timer)
    // Closes the connection when the loop stopped early, so the rest of a large object is not downloaded.
    body.destroy()
  }
  return concatChunks(chunks, size)
}
