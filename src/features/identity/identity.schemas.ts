import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

/** A link ticket, as the callback put it in the console's fragment (`#link_ticket=...`). */
const Ticket = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'The `link_ticket` of the callback.',
})

/** `POST /auth/link-info` and `POST /auth/link`: the ticket, and for linking the account's password. */
export const LinkAccountReq = namedObject('LinkAccountReq', {
  ticket: Ticket,
  password: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: "The existing account's password; required by `/auth/link`, ignored by `/auth/link-info`.",
    }),
  ),
})

/** What a link ticket names. */
export const LinkAccountInfoResp = namedObject('LinkAccountInfoResp', {
  email: Type.String({
    description: 'The address the provider vouched for, which has a password account here.',
  }),
  provider: Type.String({ description: 'The provider whose identity would be linked (`google`).' }),
})

/** The callback's query: what a provider sends back. Google adds more (`scope`, `authuser`, ...), all ignored. */
export const ProviderCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
)
