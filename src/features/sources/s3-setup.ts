// `GET /v1/sources/s3/setup`: what an operator creates on the S3 side so that this server can
// keep objects in the bucket, hand out upload credentials, and import from tenants' own buckets.
// Built from configuration only; it names the bucket and endpoint but never a key or a secret.
import type { Config } from '../../platform/config/config.load'
import { corpusUploadPrefix } from '../../platform/storage/keys'
import { type IamPolicy, publicEndpoint, uploadPolicy } from './upload-credentials'

/** The setup guide. */
export interface S3Setup {
  storage: 'local' | 's3'
  bucket: string | null
  endpoint: string | null
  engram_policy: IamPolicy
  bucket_policy: IamPolicy
  assume_role: { role_arn_hint: string; trust_policy: IamPolicy; session_policy_example: IamPolicy }
  source_read_policy: IamPolicy
  steps: string[]
}

// Placeholders, written in capitals so that nobody mistakes them for values of this server.
const BUCKET = 'ENGRAM_BUCKET'
const ENGRAM_USER = 'arn:aws:iam::ACCOUNT_ID:user/engram'
const SOURCE_BUCKET = 'SOURCE_BUCKET'
const SOURCE_PREFIX = 'SOURCE_PREFIX/'

/** What this server's own storage credentials need: everything on objects of its bucket, nothing beyond. */
function engramPolicy(bucket: string): IamPolicy {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'EngramListsItsBucket',
        Effect: 'Allow',
        Action: ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'],
        Resource: `arn:aws:s3:::${bucket}`,
      },
      {
        Sid: 'EngramReadsAndWritesObjects',
        Effect: 'Allow',
        Action: [
          's3:GetObject',
          's3:PutObject',
          's3:DeleteObject',
          's3:AbortMultipartUpload',
          's3:ListMultipartUploadParts',
        ],
        Resource: `arn:aws:s3:::${bucket}/*`,
      },
    ],
  }
}

/** The same rights granted from the bucket's side, for a bucket in another account than the user. */
function bucketPolicy(bucket: string): IamPolicy {
  const [list, objects] = engramPolicy(bucket).Statement
  return {
    Version: '2012-10-17',
    Statement: [
      { ...list!, Principal: { AWS: ENGRAM_USER } },
      { ...objects!, Principal: { AWS: ENGRAM_USER } },
    ],
  }
}

/** Who may assume the upload role on AWS: this server's storage user. */
function trustPolicy(): IamPolicy {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { AWS: ENGRAM_USER }, Action: 'sts:AssumeRole' }],
  }
}

/**
 * What a tenant grants, in their own bucket, to the credentials they give a source: listing and
 * reading under one prefix. `s3:GetBucketLocation` because a client that is not told the region
 * asks the bucket for it before the first listing.
 */
function sourceReadPolicy(): IamPolicy {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'ListTheSourceFolder',
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: `arn:aws:s3:::${SOURCE_BUCKET}`,
        Condition: { StringLike: { 's3:prefix': [SOURCE_PREFIX, `${SOURCE_PREFIX}*`] } },
      },
      {
        Sid: 'FindTheRegion',
        Effect: 'Allow',
        Action: 's3:GetBucketLocation',
        Resource: `arn:aws:s3:::${SOURCE_BUCKET}`,
      },
      {
        Sid: 'ReadTheSourceFolder',
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: `arn:aws:s3:::${SOURCE_BUCKET}/${SOURCE_PREFIX}*`,
      },
    ],
  }
}

function steps(s3: boolean, bucket: string): string[] {
  return [
    ...(s3
      ? []
      : [
          'This server keeps objects on local disk: set ENGRAM_STORAGE=s3 with ENGRAM_S3_ENDPOINT, ENGRAM_S3_BUCKET, ENGRAM_S3_REGION, ENGRAM_S3_ACCESS_KEY and ENGRAM_S3_SECRET_KEY to use a bucket, then restart. Until then upload credentials are refused (409 upload_credentials_unavailable).',
        ]),
    `Create the bucket ${bucket}, private (block all public access).`,
    'Create a user for this server, attach engram_policy to it, and give its access key and secret key to this server (ENGRAM_S3_ACCESS_KEY, ENGRAM_S3_SECRET_KEY). In the same account no bucket policy is needed; for a bucket in another account, also attach bucket_policy to the bucket.',
    'MinIO and most S3-compatible servers answer STS AssumeRole at the S3 endpoint for that same user: nothing more to create. The session policy then narrows each set of upload credentials to one base.',
    'On AWS, STS is a separate service: create a role with engram_policy as its permissions and trust_policy as its trust relationship, and allow the user sts:AssumeRole on it (see role_arn_hint).',
    'Check: POST /v1/corpora/{id}/upload-credentials answers credentials valid for one hour that may write only under <workspace>/corpora/<base>/uploads/ (session_policy_example shows the policy sent).',
    'If browsers upload with these credentials, allow PUT from the console origin in the bucket CORS configuration.',
    'Tenants who import from their own bucket create there read-only credentials with source_read_policy, replacing SOURCE_BUCKET and SOURCE_PREFIX with their bucket and folder.',
  ]
}

/** The setup guide for this server's storage configuration. */
export function s3Setup(storage: Config['storage']): S3Setup {
  const s3 = storage.driver === 's3' && !!storage.s3_bucket
  const bucket = s3 ? storage.s3_bucket! : BUCKET
  return {
    storage: storage.driver,
    bucket: s3 ? bucket : null,
    endpoint: s3 && storage.s3_endpoint ? publicEndpoint(storage.s3_endpoint) : null,
    engram_policy: engramPolicy(bucket),
    bucket_policy: bucketPolicy(bucket),
    assume_role: {
      role_arn_hint:
        'Not needed on MinIO and most S3-compatible servers (the storage user assumes its own permissions). On AWS: arn:aws:iam::ACCOUNT_ID:role/engram-uploads, a role with engram_policy as permissions and trust_policy as trust relationship.',
      trust_policy: trustPolicy(),
      session_policy_example: uploadPolicy(bucket, corpusUploadPrefix('WORKSPACE_ID', 'CORPUS_ID')),
    },
    source_read_policy: sourceReadPolicy(),
    steps: steps(s3, bucket),
  }
}
