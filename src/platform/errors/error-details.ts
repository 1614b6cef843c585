import { Type } from '@sinclair/typebox'

/** The schemas of errors' `details`, named in the error table (errors.ts) and the OpenAPI document. */

/** The `details` of a 503 `serving_unavailable` (the same delay is in the `Retry-After` header). */
export const ServingUnavailableDetail = Type.Object(
  { retry_after_seconds: Type.Integer({ minimum: 0, description: 'Seconds to wait before asking again.' }) },
  { $id: 'ServingUnavailableDetail' },
)

/** The `details` of a 429 `rate_limited`. */
export const RateLimitedDetail = Type.Object(
  {
    limit: Type.String({ description: 'The limit that was reached.' }),
    retry_after: Type.Integer({ minimum: 0, description: 'Seconds until the window renews.' }),
  },
  { $id: 'RateLimitedDetail' },
)

/** The `details` of a 403 `ip_not_allowed` and a 409 `would_lock_out`. */
export const ClientAddressDetail = Type.Object(
  {
    address: Type.String({
      description: 'The client address as the server sees it (behind trusted proxies).',
    }),
  },
  { $id: 'ClientAddressDetail' },
)

/** The `details` of a 409 `legal_version_outdated`: the document, and the version it can be accepted in. */
export const LegalVersionDetail = Type.Object(
  { document: Type.String(), current_version: Type.String() },
  { $id: 'LegalVersionDetail' },
)

/** The `details` of a 403 `plan_limit_reached`: which cap, its limit, and what is used of it. */
export const PlanLimitDetail = Type.Object(
  {
    cap: Type.String({
      description: 'bases, documents, storage_bytes, queries_per_month, seats or api_keys.',
    }),
    limit: Type.Integer({ minimum: 0, description: "The workspace's plan allows this much." }),
    used: Type.Integer({ minimum: 0, description: 'What the workspace uses of it now.' }),
  },
  { $id: 'PlanLimitDetail' },
)

/** The `details` of a 403 `legal_acceptance_required`: the first document to accept, and where. */
export const LegalAcceptanceDetail = Type.Object(
  {
    document: Type.String({ description: 'terms, privacy or dpa.' }),
    version: Type.String({ description: 'The version to accept.' }),
    accept_url: Type.String({ description: 'Where to accept it (POST, with document and version).' }),
  },
  { $id: 'LegalAcceptanceDetail' },
)
