import { Type } from '@sinclair/typebox'

export const RootResp = Type.Object({
  service: Type.String({ description: 'Service identifier.' }),
  version: Type.String({ description: 'Build version.' }),
  api_versions: Type.Array(Type.String(), { description: 'API versions this deployment serves.' }),
  docs: Type.String({ description: 'Path of the browsable API documentation.' }),
})

export const Deprecation = Type.Object({
  surface: Type.String({ description: 'What is scheduled for removal.' }),
  removal_date: Type.String({ description: 'Date (YYYY-MM-DD) after which it stops answering.' }),
  successor: Type.String({ description: 'What to use instead.' }),
})

export const VersionResp = Type.Object({
  version: Type.String(),
  deprecations: Type.Array(Deprecation),
  docs: Type.String(),
})
