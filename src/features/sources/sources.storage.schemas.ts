import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())])

/** An IAM policy document, in the form S3 servers and AWS accept. */
export const IamPolicy = namedObject(
  'IamPolicy',
  {
    Version: Type.Literal('2012-10-17'),
    Statement: Type.Array(
      Type.Object({
        Sid: Type.Optional(Type.String()),
        Effect: Type.Union([Type.Literal('Allow'), Type.Literal('Deny')]),
        Principal: Type.Optional(Type.Record(Type.String(), Type.String())),
        Action: StringOrList,
        Resource: Type.Optional(StringOrList),
        Condition: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), StringOrList))),
      }),
    ),
  },
  { description: 'An IAM policy document; names in capitals (ACCOUNT_ID, SOURCE_BUCKET) are placeholders.' },
)

export const UploadCredentialsResp = namedObject('UploadCredentialsResp', {
  access_key_id: Type.String(),
  secret_access_key: Type.String({ description: 'Shown once; not stored by this server.' }),
  session_token: Type.String({ description: 'Send with every request (x-amz-security-token).' }),
  expires_at: Type.String({ format: 'date-time', description: 'One hour after issue.' }),
  endpoint: Type.String({ description: 'The S3 endpoint to send uploads to.' }),
  bucket: Type.String(),
  region: Type.String(),
  prefix: Type.String({ description: 'Every key written must start with this; anything else is refused.' }),
  allowed_actions: Type.Array(Type.String(), { description: 'The S3 actions the credentials allow.' }),
})

export const S3SetupResp = namedObject('S3SetupResp', {
  storage: Type.Union([Type.Literal('local'), Type.Literal('s3')], {
    description: 'Where this server keeps objects now.',
  }),
  bucket: Type.Union([Type.String(), Type.Null()], {
    description: 'The configured bucket; null with local storage.',
  }),
  endpoint: Type.Union([Type.String(), Type.Null()], {
    description: 'The configured S3 endpoint (origin only); null with local storage.',
  }),
  engram_policy: IamPolicy,
  bucket_policy: IamPolicy,
  assume_role: Type.Object({
    role_arn_hint: Type.String(),
    trust_policy: IamPolicy,
    session_policy_example: IamPolicy,
  }),
  source_read_policy: IamPolicy,
  steps: Type.Array(Type.String(), {
    description:
      "What to do, in order. engram_policy is the storage user's policy; bucket_policy the same rights from the bucket side (another account); trust_policy the upload role's trust relationship on AWS; session_policy_example what AssumeRole sends for one base; source_read_policy what a tenant grants in their own bucket.",
  }),
})
