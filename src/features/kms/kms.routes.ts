import { defineRoute, type RouteDef } from '../../platform/http/route'
import { KmsKeyReq, KmsKeyResp, KmsRotateReq } from './kms.schemas'
import type { KmsService } from './kms.service'

const TAGS = ['enterprise']

/** `/v1/enterprise/kms-key` (spec, Enterprise): a workspace admin's; an API key needs `admin`. */
export function kmsRoutes(kms: KmsService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/enterprise/kms-key',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "The workspace's customer-managed key: where it is, whether it is on, what it sealed",
      description:
        'Never shows a key: only where it lives (`provider`, `key_id`, `endpoint`, `region`), its status, the background pass running, and the objects the last pass counted sealed and plain.',
      tags: TAGS,
      response: KmsKeyResp,
      handler: ({ principal }) => kms.get(principal.workspaceId),
    }),
    defineRoute({
      method: 'PUT',
      path: '/enterprise/kms-key',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "Set the workspace's encryption key, or turn it off and on",
      description:
        "From the first save, every object the workspace writes (raw files, text sidecars, cartridges) is sealed with a data key of its own wrapped by this key, and a background pass seals the objects stored before. An enabled `aws-kms` key is tried first (a data key made and opened); a KMS that refuses is a 422 `kms_key_rejected` and nothing is saved. `enabled: false` refuses every read and write of the workspace's content at once (409 `encryption_key_unavailable`) until it is true again; nothing is lost. The provider cannot change once set, and another `aws-kms` key is reached by rotating to it.",
      tags: TAGS,
      body: KmsKeyReq,
      response: KmsKeyResp,
      errors: ['kms_key_rejected', 'conflict'],
      handler: ({ principal, body, ip, requestId }) => kms.put(principal, body, { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/enterprise/kms-key/rotate',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      status: 202,
      summary: 'Rotate the key: every data key is re-wrapped, no content is re-encrypted',
      description:
        'A `local` key gets a new version; an `aws-kms` key is re-wrapped under its newest key material, or under another key of the same KMS (`key_id`). A background pass (`pass: "rotate"`) then re-wraps each object\'s data key, copying its encrypted content unchanged; `rotated_at` is set when it has finished. Older key versions (or the key rotated away from) still open objects that name them, such as an upload in flight during the rotation. 409 while the key is disabled or a rotation runs.',
      tags: TAGS,
      body: KmsRotateReq,
      response: KmsKeyResp,
      errors: ['kms_key_rejected', 'conflict', 'encryption_key_unavailable'],
      handler: ({ principal, body, ip, requestId }) => kms.rotate(principal, body, { ip, requestId }),
    }),
  ]
}
