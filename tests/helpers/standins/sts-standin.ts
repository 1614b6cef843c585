import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/** One AssumeRole call the stand-in accepted, as it received it. */
export interface StsCall {
  params: Record<string, string>
  /** The session policy, parsed; null when none was sent. */
  policy: unknown
  /** The access key that signed the request. */
  accessKey: string
}

/** Options: the one identity the stand-in knows, and its clock (expirations are issued from it). */
export interface StsStandinOptions {
  accessKey: string
  secretKey: string
  region?: string
  now?: () => Date
}

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/'

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex')
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest()

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** The STS error shape (`ErrorResponse`), with its HTTP status. */
function stsError(status: number, code: string, message: string): Response {
  const type = status >= 500 ? 'Receiver' : 'Sender'
  const xml =
    `<ErrorResponse xmlns="${NS}"><Error><Type>${type}</Type><Code>${code}</Code>` +
    `<Message>${xmlEscape(message)}</Message></Error><RequestId>standin</RequestId></ErrorResponse>`
  return new Response(xml, { status, headers: { 'content-type': 'text/xml' } })
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/

/**
 * Checks the SigV4 signature of a request (service `sts`) the way AWS does: rebuilds the canonical
 * request from the headers as received, and compares signatures in constant time. Returns the
 * error to answer, or null.
 */
function verifySigV4(req: Request, url: URL, body: string, o: Required<StsStandinOptions>): Response | null {
  const m = AUTH.exec(req.headers.get('authorization') ?? '')
  if (!m) return stsError(403, 'IncompleteSignature', 'The request signature is missing or malformed.')
  const [, accessKey, day, region, service, signedHeaders, signature] = m as unknown as string[]
  if (accessKey !== o.accessKey)
    return stsError(403, 'InvalidClientTokenId', 'The security token is invalid.')
  if (service !== 'sts' || region !== o.region) {
    return stsError(403, 'SignatureDoesNotMatch', `Credential scope must be ${o.region}/sts.`)
  }
  const amzDate = req.headers.get('x-amz-date') ?? ''
  const payloadHash = req.headers.get('x-amz-content-sha256') ?? sha256Hex(body)
  if (!amzDate.startsWith(day!) || payloadHash !== sha256Hex(body)) {
    return stsError(403, 'SignatureDoesNotMatch', 'The date or payload hash does not match the request.')
  }
  const names = signedHeaders!.split(';')
  if (!names.includes('host'))
    return stsError(403, 'SignatureDoesNotMatch', 'The host header must be signed.')
  const canonicalHeaders = names.map((n) => `${n}:${(req.headers.get(n) ?? '').trim().replace(/ +/g, ' ')}\n`)
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&')
  const canonical = [
    req.method,
    url.pathname,
    query,
    canonicalHeaders.join(''),
    signedHeaders,
    payloadHash,
  ].join('\n')
  const scope = `${day}/${region}/${service}/aws4_request`
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${o.secretKey}`, day!), region!), service!), 'aws4_request')
  const expected = createHmac('sha256', key).update(toSign).digest()
  const given = Buffer.from(signature!, 'hex')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return stsError(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    )
  }
  return null
}

/**
 * A local stand-in for STS's AssumeRole query protocol (what MinIO serves at its S3 endpoint and
 * AWS at sts.amazonaws.com): real HTTP on 127.0.0.1, a form-encoded POST signed with SigV4, and the
 * real XML answers. It verifies the signature against the one identity it knows, records every
 * accepted call (with the session policy parsed), and issues credentials that expire
 * `DurationSeconds` after its clock's now.
 */
export function startStsStandin(options: StsStandinOptions) {
  const o: Required<StsStandinOptions> = { region: 'us-east-1', now: () => new Date(), ...options }
  const calls: StsCall[] = []
  let issued = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      if (req.method !== 'POST' || url.pathname !== '/') return stsError(404, 'NotFound', 'Not an STS path.')
      const body = await req.text()
      const refused = verifySigV4(req, url, body, o)
      if (refused) return refused
      const params = Object.fromEntries(new URLSearchParams(body))
      if (params.Action !== 'AssumeRole' || params.Version !== '2011-06-15') {
        return stsError(400, 'InvalidAction', 'Only AssumeRole of version 2011-06-15 is served here.')
      }
      const duration = Number(params.DurationSeconds ?? 3600)
      if (!Number.isInteger(duration) || duration < 900 || duration > 43_200) {
        return stsError(400, 'ValidationError', 'DurationSeconds must be between 900 and 43200.')
      }
      let policy: unknown = null
      if (params.Policy !== undefined) {
        try {
          policy = JSON.parse(params.Policy)
        } catch {
          return stsError(400, 'MalformedPolicyDocument', 'The session policy is not valid JSON.')
        }
      }
      calls.push({ params, policy, accessKey: o.accessKey })
      issued++
      const expiration = new Date(o.now().getTime() + duration * 1000).toISOString()
      const xml =
        `<AssumeRoleResponse xmlns="${NS}"><AssumeRoleResult>` +
        `<AssumedRoleUser><Arn>arn:aws:sts::000000000000:assumed-role/standin/${xmlEscape(params.RoleSessionName ?? 'session')}</Arn>` +
        `<AssumedRoleId>AROASTANDIN:${issued}</AssumedRoleId></AssumedRoleUser>` +
        `<Credentials><AccessKeyId>ASIASTANDIN${issued}</AccessKeyId>` +
        `<SecretAccessKey>standin-secret-${issued}</SecretAccessKey>` +
        `<SessionToken>standin-session-token-${issued}</SessionToken>` +
        `<Expiration>${expiration}</Expiration></Credentials>` +
        `</AssumeRoleResult><ResponseMetadata><RequestId>standin-${issued}</RequestId></ResponseMetadata>` +
        '</AssumeRoleResponse>'
      return new Response(xml, { headers: { 'content-type': 'text/xml' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    async stop() {
      await server.stop(true)
    },
  }
}
