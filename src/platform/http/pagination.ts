import { Type } from '@sinclair/typebox'
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../paging/paging'

/** Query parameters every `/v1` list route accepts, merged into the route's own query schema. */
export const pageQueryProperties = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_LIMIT_MAX,
      default: PAGE_LIMIT_DEFAULT,
      description: 'Page size.',
    }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'Opaque cursor from `next_cursor`.' })),
}
