import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const Provider = Type.Union([Type.Literal('local'), Type.Literal('aws-kms')], {
  description:
    '`local`: a key Engram holds itself, sealed under the server secret (installs without a KMS). `aws-kms`: a key in AWS KMS, or in a KMS speaking its API at `endpoint`.',
})

export const KmsKeyReq = namedObject('KmsKeyReq', {
  provider: Provider,
  key_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'The KMS key id, ARN or alias (`aws-kms`, required). `local` names its own key and ignores this.',
    }),
  ),
  endpoint: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "The KMS's URL (`aws-kms` only): unset for AWS itself, or an on-prem KMS speaking the AWS KMS API. https unless the operator allows http (kms.allow_http); private and loopback addresses only as the operator allows (kms.allow_private_networks, kms.allow_loopback).",
    }),
  ),
  region: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$' })),
  enabled: Type.Boolean({
    description:
      "false: every read and write of the workspace's content (answers, MCP, document text and downloads, onboarding, uploads) is refused at once with 409 `encryption_key_unavailable`, until it is true again. Nothing is deleted.",
  }),
})

export const KmsRotateReq = namedObject('KmsRotateReq', {
  key_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        '`aws-kms` only: move to this key of the same KMS (every data key is re-wrapped under it).',
    }),
  ),
})

const Time = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description })

export const KmsKeyResp = namedObject('KmsKeyResp', {
  provider: Type.Union([Provider, Type.Null()], { description: 'null: no key; objects are stored plain.' }),
  key_id: Type.Union([Type.String(), Type.Null()]),
  endpoint: Type.Union([Type.String(), Type.Null()]),
  region: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('not_configured'), Type.Literal('enabled'), Type.Literal('disabled')]),
  pass: Type.Union([Type.Literal('encrypt'), Type.Literal('rotate'), Type.Null()], {
    description:
      "The background pass running over the workspace's objects: `encrypt` seals those stored plain (written before the key was set), `rotate` re-wraps every data key without re-encrypting content.",
  }),
  rotated_at: Time('When the last rotation finished re-wrapping every object.'),
  encrypted_objects: Type.Integer({
    description: 'Objects sealed under the key, as the last finished pass counted them.',
  }),
  plaintext_objects: Type.Integer({ description: 'Objects still plain when the last pass counted them.' }),
  counted_at: Time('When the last pass finished counting.'),
  updated_at: Time('When the settings were last saved.'),
  kms_error: Type.Union([Type.String(), Type.Null()], {
    description:
      "The error the KMS answered when it last refused the key (`DisabledException`, `AccessDeniedException`, a timeout ...), as this server saw it; null once it serves the key again. For 30 seconds after each refusal the workspace's content is refused without asking the KMS again (docs/encryption.md).",
  }),
})
