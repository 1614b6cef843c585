import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

export const RootResp = namedObject('RootResp', {
  service: Type.String({ description: 'Service identifier.' }),
  version: Type.String({ description: 'Build version.' }),
  api_versions: Type.Array(Type.String(), { description: 'API versions this deployment serves.' }),
  docs: Type.String({ description: 'Path of the browsable API documentation.' }),
})

export const ReadyResp = namedObject('ReadyResp', {
  status: Type.Literal('ready', { description: 'The server can serve: its database answered just now.' }),
})

export const Deprecation = namedObject('Deprecation', {
  surface: Type.String({ description: 'What is scheduled for removal.' }),
  removal_date: Type.String({ description: 'Date (YYYY-MM-DD) after which it stops answering.' }),
  successor: Type.String({ description: 'What to use instead.' }),
})

export const VersionResp = namedObject('VersionResp', {
  version: Type.String(),
  deprecations: Type.Array(Deprecation),
  docs: Type.String(),
})

export const OpenApiDocument = namedObject(
  'OpenApiDocument',
  { openapi: Type.String(), info: Type.Object({}, { additionalProperties: true }) },
  { additionalProperties: true, description: 'An OpenAPI 3.1 document.' },
)
