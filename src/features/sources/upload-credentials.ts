// Upload credentials (`POST /v1/corpora/{id}/upload-credentials`): an hour of temporary bucket
// credentials, obtained from the S3 server's STS endpoint with AssumeRole, whose session policy
// lets the holder write only under one base's upload prefix. The request is built, signed (SigV4,
// service `sts`) and parsed by minio's AssumeRoleProvider, the client made for that protocol.
import type { AssumeRoleProvider } from 'minio/dist/esm/AssumeRoleProvider.mjs'
import type { Config } from '../../platform/config/config.load'
import { fail } from '../../platform/errors/errors'
import { corpusUploadPrefix } from '../../platform/storage/keys'

/** How long the credentials live: the spec's hour. */
export const UPLOAD_CREDENTIALS_SECONDS = 3600

/**
 * What the credentials may do. `s3:PutObject` covers single PUTs and every step of a multipart
 * upload (create, upload part, complete); the other two let a client clean up or resume one.
 */
export const UPLOAD_ACTIONS = ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts']

/** Longest wait for the STS endpoint: a request to the API must not hang on a stalled object store. */
const STS_TIMEOUT_MS = 10_000

/** An IAM policy document, as S3 servers and AWS read it. */
export interface IamPolicy {
  Version: '2012-10-17'
  Statement: {
    Sid?: string
    Effect: 'Allow' | 'Deny'
    Principal?: Record<string, string>
    Action: string | string[]
    Resource?: string | string[]
    Condition?: Record<string, Record<string, string | string[]>>
  }[]
}

/** Temporary credentials for one base. */
export interface UploadCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken: string
  expiresAt: Date
  endpoint: string
  bucket: string
  region: string
  /** Keys the holder may write start with this. */
  prefix: string
  allowedActions: string[]
}

/** Options beyond the storage configuration. */
export interface UploadCredentialsOptions {
  /**
   * Where to send AssumeRole; the S3 endpoint by default (MinIO and most S3-compatible servers
   * answer STS there). AWS has a separate STS service.
   */
  stsEndpoint?: string
  /** The role to assume. MinIO ignores it (a user assumes its own permissions); AWS requires it. */
  roleArn?: string
  /** Longest wait for STS, in milliseconds; 10 seconds by default. */
  timeoutMs?: number
}

/**
 * The endpoint as clients may be told it: origin only. A URL may carry `user:password@`, and this
 * value is answered to tenants.
 */
export function publicEndpoint(endpoint: string): string {
  return new URL(endpoint).origin
}

/** The session policy of a base: writes under `prefix` of `bucket`, nothing else. */
export function uploadPolicy(bucket: string, prefix: string): IamPolicy {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'EngramUploadsToOneBase',
        Effect: 'Allow',
        Action: [...UPLOAD_ACTIONS],
        // The prefix ends with '/', so the wildcard cannot reach a neighbouring base (cor_1 vs cor_10).
        Resource: `arn:aws:s3:::${bucket}/${prefix}*`,
      },
    ],
  }
}

/**
 * AssumeRole with a deadline: minio's request has none, and a stalled endpoint would hold the
 * caller's request open indefinitely. The library is loaded by the first request for credentials.
 */
async function deadlineProvider(
  options: ConstructorParameters<typeof AssumeRoleProvider>[0],
  timeoutMs: number,
): Promise<AssumeRoleProvider> {
  const { AssumeRoleProvider } = await import('minio/dist/esm/AssumeRoleProvider.mjs')
  return new (class extends AssumeRoleProvider {
    override getRequestConfig(): ReturnType<AssumeRoleProvider['getRequestConfig']> {
      const config = super.getRequestConfig()
      config.requestOptions.signal = AbortSignal.timeout(timeoutMs)
      return config
    }
  })(options)
}

type StsResponse = Awaited<ReturnType<AssumeRoleProvider['performRequest']>>

/** The error code STS answered with, from a parsed `<ErrorResponse>` or a thrown `<Error>` body. */
function stsErrorCode(x: unknown): string | null {
  if (typeof x !== 'object' || x === null) return null
  const o = x as { Code?: unknown; ErrorResponse?: { Error?: { Code?: unknown } } }
  const code = o.ErrorResponse?.Error?.Code ?? o.Code
  // Only the code's own characters: it is quoted to the caller, and the body is not ours.
  return code === undefined
    ? null
    : String(code)
        .replace(/[^A-Za-z0-9_.-]/g, '')
        .slice(0, 64) || 'Unknown'
}

// STS failures are answered as 503 service_unavailable, not 502 source_failed: the failing party
// is this server's own object store, which the caller can neither see nor fix (source_failed
// names the caller's import sources and would send them looking there). The STS error code is
// kept in the message for the operator; it carries no secret.
function refused(code: string): Error {
  return fail(
    'service_unavailable',
    `The object store refused to issue upload credentials (${code}). The operator should check the storage credentials and the S3 setup (GET /v1/sources/s3/setup).`,
  )
}

/** Issues upload credentials for bases, with the configured storage credentials. */
export class UploadCredentialsService {
  constructor(
    private readonly storage: Config['storage'],
    private readonly options: UploadCredentialsOptions = {},
  ) {}

  /**
   * An hour of credentials that may write only under the base's upload prefix. With local storage
   * there is no bucket to write to: 409 `upload_credentials_unavailable`. The caller has checked
   * that the base belongs to the workspace.
   */
  async issue(workspaceId: string, corpusId: string): Promise<UploadCredentials> {
    const s = this.storage
    if (s.driver !== 's3' || !s.s3_endpoint || !s.s3_bucket || !s.s3_access_key || !s.s3_secret_key) {
      throw fail('upload_credentials_unavailable')
    }
    const prefix = corpusUploadPrefix(workspaceId, corpusId)
    const provider = await deadlineProvider(
      {
        stsEndpoint: this.options.stsEndpoint ?? s.s3_endpoint,
        accessKey: s.s3_access_key,
        secretKey: s.s3_secret_key,
        region: s.s3_region,
        durationSeconds: UPLOAD_CREDENTIALS_SECONDS,
        policy: JSON.stringify(uploadPolicy(s.s3_bucket, prefix)),
        roleArn: this.options.roleArn,
        // Shown in the object store's audit log: which base the session was for (64 characters at most).
        roleSessionName: `engram-${corpusId}`.slice(0, 64),
      },
      this.options.timeoutMs ?? STS_TIMEOUT_MS,
    )
    let response: StsResponse
    try {
      response = await provider.performRequest()
    } catch (e) {
      const code = stsErrorCode(e)
      if (code) throw refused(code)
      throw fail('service_unavailable', 'The object store could not be reached to issue upload credentials.')
    }
    const code = stsErrorCode(response)
    if (code) throw refused(code)
    const c = response.AssumeRoleResponse?.AssumeRoleResult?.Credentials
    const expiresAt = new Date(c?.Expiration ?? Number.NaN)
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || Number.isNaN(expiresAt.getTime())) {
      throw refused('MalformedResponse')
    }
    return {
      // The XML parser turns digit-only text into numbers; credentials are strings.
      accessKeyId: String(c.AccessKeyId),
      secretAccessKey: String(c.SecretAccessKey),
      sessionToken: String(c.SessionToken),
      expiresAt,
      endpoint: publicEndpoint(s.s3_endpoint),
      bucket: s.s3_bucket,
      region: s.s3_region,
      prefix,
      allowedActions: [...UPLOAD_ACTIONS],
    }
  }
}
