import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { NameString } from '../../platform/http/text-formats'

/** A scope an API key may hold. */
export const ScopeSchema = Type.Union([Type.Literal('ingest'), Type.Literal('query'), Type.Literal('admin')])

/** Most bases one key may be bound to. */
export const MAX_KEY_BASES = 100

export const KeyIdParams = Type.Object({ key_id: Type.String({ maxLength: 64 }) })

export const ApiKeyCreateReq = namedObject('ApiKeyCreateReq', {
  name: NameString({ minLength: 1, maxLength: 100 }),
  scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, description: 'Non-empty.' }),
  expires_at: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Must be in the future; null or absent means never.',
    }),
  ),
  corpus_ids: Type.Optional(
    Type.Union(
      [
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          minItems: 1,
          maxItems: MAX_KEY_BASES,
        }),
        Type.Null(),
      ],
      {
        description: `The bases the key reaches (1 to ${MAX_KEY_BASES} distinct ids of this workspace's bases); null or absent: every base. A bound key sees any other base as missing (404) and cannot act on the whole workspace (403 \`key_bound_to_bases\`).`,
      },
    ),
  ),
})

const keyFields = {
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'First 12 characters of the secret.' }),
  scopes: Type.Array(ScopeSchema),
  corpus_ids: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The bases the key is bound to; null: every base of the workspace.',
  }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
}

/** An API key as listed; the secret is never part of it. */
export const ApiKeyResp = namedObject('ApiKeyResp', keyFields)

/** The create response: the listing fields plus the secret, shown this once. */
export const ApiKeyCreatedResp = namedObject('ApiKeyCreatedResp', {
  ...keyFields,
  key: Type.String({ description: 'The secret (`ek_...`); only its SHA-256 is kept.' }),
})
