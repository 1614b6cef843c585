import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

export const PlatformInfoResp = namedObject('PlatformInfoResp', {
  version: Type.String(),
  storage: Type.Union([Type.Literal('local'), Type.Literal('s3')], {
    description: 'Where documents are stored: files under the data directory, or an S3-compatible bucket.',
  }),
  region: Type.Union([Type.String(), Type.Null()], {
    description: "The object store's region with S3 storage; null with local storage.",
  }),
  egress: Type.Object({
    summary: Type.String({ description: 'What leaves this server, in one paragraph.' }),
    destinations: Type.Array(
      Type.Object({
        name: Type.String(),
        purpose: Type.String({ description: 'What is sent there.' }),
        configured: Type.Boolean({ description: 'Whether this server sends anything there now.' }),
      }),
      { description: 'Every kind of outbound connection this server can make; addresses are not shown.' },
    ),
  }),
  accepted_file_types: Type.Array(
    Type.Object({
      kind: Type.String(),
      content_type: Type.String(),
      extensions: Type.Array(Type.String()),
    }),
    {
      description:
        'What uploads and pushes accept, from the extraction table; any other text is read as plain text.',
    },
  ),
  limits: Type.Object({
    max_file_bytes: Type.Integer(),
    max_files_per_request: Type.Integer(),
    max_request_bytes: Type.Integer(),
    max_manifest_files: Type.Integer({
      description: 'Most files one push manifest (diff, upload-urls, commit) lists.',
    }),
    max_json_bytes: Type.Integer({
      description: 'Largest JSON body of the push protocol (a manifest, an upsert).',
    }),
  }),
})
