import type { TSchema } from '@sinclair/typebox'
import {
  ClientAddressDetail,
  LegalAcceptanceDetail,
  LegalVersionDetail,
  PlanLimitDetail,
  RateLimitedDetail,
  ServingUnavailableDetail,
} from './error-details'

/**
 * The one table of error codes. Every failure the API answers comes from a line here: its code
 * (clients switch on it), HTTP status and default message. Features raise them with `fail(code)`.
 * `retryAfter` marks answers that carry a `Retry-After` header and `details` the schema of their
 * `details`; both are for the OpenAPI document.
 */
export const errorTable = {
  bad_request: { status: 400, message: 'The request is not valid.' },
  malformed_json: { status: 400, message: 'The request body is not valid JSON.' },
  unknown_documents: { status: 400, message: 'Some pinned document ids are not in the base.' },
  invalid_token: { status: 400, message: 'The link is invalid, already used or expired.' },
  // The billing webhook (docs/billing.md): the body must carry Stripe's valid, recent signature.
  invalid_signature: {
    status: 400,
    message:
      'The Stripe-Signature header is missing, or does not match the body with the webhook signing secret, or is too old.',
  },
  // Google sign-in and linking (docs/accounts.md); its callback also redirects with `invalid_state`.
  provider_sign_in_failed: {
    status: 400,
    message: 'The identity provider refused the sign-in, or its answer could not be verified. Try again.',
  },
  link_ticket_invalid: {
    status: 400,
    message: 'The link ticket is invalid or has expired. Sign in with the provider again.',
  },
  invalid_state: {
    status: 400,
    message: 'The sign-in took too long, was started in another browser, or was already used. Start again.',
  },
  unauthorized: { status: 401, message: 'Not authenticated.' },
  invalid_credentials: { status: 401, message: 'Incorrect email or password.' },
  sso_token_invalid: {
    status: 401,
    message:
      "The identity provider's answer did not check out (signature, issuer, audience, expiry or nonce).",
  },
  // A 403, not a 401: the caller's session is fine, only the password they retyped is not.
  wrong_password: { status: 403, message: 'The current password is incorrect.' },
  forbidden: { status: 403, message: 'You do not have permission to do this.' },
  missing_scope: { status: 403, message: 'API key missing required scope.' },
  admin_required: { status: 403, message: 'Workspace admin role required.' },
  email_not_verified: { status: 403, message: 'Email address not verified. Use the link we sent you.' },
  registration_closed: { status: 403, message: 'Registration is closed on this server.' },
  account_disabled: { status: 403, message: 'This account is deactivated.' },
  workspace_suspended: { status: 403, message: 'This workspace is suspended.' },
  session_required: { status: 403, message: 'This route needs a user session, not an API key.' },
  api_key_required: {
    status: 403,
    message:
      'This route is for agents: authenticate with an API key (Authorization: Bearer ek_...), not a session.',
  },
  key_bound_to_bases: {
    status: 403,
    message:
      'This API key is bound to some bases: it cannot act on the whole workspace (create a base, manage keys, members, connections or billing, read usage).',
  },
  // The credential is valid; the address it was sent from is not on its workspace's allowlist.
  ip_not_allowed: {
    status: 403,
    message: "The workspace's IP allowlist does not include the address this request came from.",
    details: ClientAddressDetail,
  },
  // A 403, not a 401: the password was right; only the break-glass code that must come with it is not.
  invalid_recovery_code: { status: 403, message: 'The recovery code is not valid or was already used.' },
  sso_required: {
    status: 403,
    message: 'This workspace signs in through single sign-on: use "Sign in with SSO" and your work address.',
  },
  seat_cap_reached: {
    status: 403,
    message:
      'The workspace has no free seat for a new single sign-on member. An admin can raise the seat cap.',
  },
  sso_domain_not_claimed: {
    status: 403,
    message: "The identity provider vouched for an address outside the workspace's single sign-on domains.",
  },
  // The workspace's plan does not allow more; nothing of the request was written (docs/plans.md).
  plan_limit_reached: {
    status: 403,
    message: "The workspace's plan does not allow more of this. An admin can move it to a larger plan.",
    details: PlanLimitDetail,
  },
  legal_acceptance_required: {
    status: 403,
    message: 'A workspace admin must accept the current terms before a paid plan is bought or changed.',
    details: LegalAcceptanceDetail,
  },
  not_found: { status: 404, message: 'Not found.' },
  google_not_configured: { status: 404, message: 'Google sign-in is not set up on this server.' },
  sso_not_configured: { status: 404, message: 'Single sign-on is not set up for this address.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  email_taken: { status: 409, message: 'An account with this email already exists.' },
  identity_linked_elsewhere: {
    status: 409,
    message: "This provider's account is already linked to another account.",
  },
  // The address's member signs in as another person (subject) at the same provider: not taken over.
  identity_mismatch: {
    status: 409,
    message:
      'This address belongs to a member who signs in as another person at this identity provider. An admin must remove that member before the address can sign in again.',
  },
  sso_domain_taken: {
    status: 409,
    message: 'Another workspace already signs in this domain through single sign-on.',
  },
  sso_not_enforced: {
    status: 409,
    message: 'Recovery codes are for a workspace that enforces single sign-on; turn enforcement on first.',
  },
  would_lock_out: {
    status: 409,
    message:
      'The allowlist does not include your own address: saving it would shut you out. Add your address, or send confirm_lockout: true.',
    details: ClientAddressDetail,
  },
  subscription_exists: {
    status: 409,
    message: 'The workspace already has a subscription: change its plan (POST /billing/change-plan) instead.',
  },
  // Another process is doing this customer's billing work (a checkout, an event): retried, it runs.
  billing_in_progress: {
    status: 409,
    message: 'Another billing operation for this workspace is in progress. Try again in a moment.',
  },
  checkout_required: {
    status: 409,
    message:
      'The workspace has no subscription yet: buy a plan through checkout (POST /billing/checkout) first.',
  },
  no_billing_account: {
    status: 409,
    message: 'The workspace has no billing account yet: buy a plan through checkout first.',
  },
  last_admin: { status: 409, message: 'A workspace must keep at least one admin.' },
  legal_version_outdated: {
    status: 409,
    message: 'That version of the document is not the current one; accept the current version.',
    details: LegalVersionDetail,
  },
  cannot_remove_self: { status: 409, message: 'You cannot remove yourself from the workspace.' },
  corpus_empty: { status: 409, message: 'The base has no documents to onboard. Upload documents first.' },
  nothing_to_train: {
    status: 409,
    message: 'Every document is already onboarded. Use force=true to redo them.',
  },
  training_in_progress: { status: 409, message: 'An onboarding run of this base is already in progress.' },
  no_training_in_progress: { status: 409, message: 'No onboarding run of this base is in progress.' },
  corpus_not_ready: {
    status: 409,
    message: 'The base is not ready. Onboard it first (POST /corpora/{id}/train).',
  },
  document_not_ready: { status: 409, message: 'The text of this document is not extracted yet.' },
  scale_test_in_progress: {
    status: 409,
    message: 'A scale test is already running in this workspace. Wait for it to finish.',
  },
  idempotency_in_progress: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
  },
  // The first answer carried a secret (an API key, an invitation link, a session token) that is
  // never stored, so it cannot be replayed; running the request again would make a second one.
  idempotency_key_reused: {
    status: 409,
    message:
      'This Idempotency-Key was already used. The first response carried a secret that is not stored, so it cannot be replayed; send a new Idempotency-Key to make another request.',
  },
  webhook_disabled: {
    status: 409,
    message: 'The webhook endpoint is disabled after failing deliveries. Enable it again first.',
  },
  webhook_limit_reached: { status: 409, message: 'The workspace has as many webhook endpoints as it may.' },
  // A 409, not a 503: the workspace's admin (or the KMS they control) turned the key off; retrying
  // changes nothing until they turn it on again, and it is no outage of this server (docs/encryption.md).
  encryption_key_unavailable: {
    status: 409,
    message:
      "The workspace's encryption key is disabled or the KMS refused it, so its content cannot be read or written. An admin can enable the key again (PUT /v1/enterprise/kms-key).",
  },
  sync_in_progress: { status: 409, message: 'A sync of this source is already running.' },
  import_in_progress: { status: 409, message: 'An import for this base is already running.' },
  connection_in_use: {
    status: 409,
    message: 'Sources still use this connection. Delete or move them first.',
  },
  upload_credentials_unavailable: {
    status: 409,
    message:
      'Upload credentials need S3 object storage; this server keeps objects on local disk. Use the push protocol (POST /v1/corpora/{id}/documents/upload-urls) instead.',
  },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Unsupported content type.' },
  validation_error: { status: 422, message: 'The request failed validation.' },
  // A provider's first sign-in redirects with it (`/auth/register` says it as a 422 on `email`).
  disposable_email: { status: 422, message: 'Disposable email addresses are not accepted.' },
  idempotency_mismatch: {
    status: 422,
    message: 'This Idempotency-Key was used with a different request.',
  },
  invalid_cursor: { status: 422, message: 'The pagination cursor is not valid.' },
  invalid_path: { status: 422, message: 'The file path is not a safe relative path.' },
  checksum_mismatch: { status: 422, message: 'The content does not match its SHA-256.' },
  content_missing: { status: 422, message: 'Content of some files of the manifest was not uploaded.' },
  too_many_files: { status: 422, message: 'The manifest lists more files than one request may.' },
  invalid_folder: { status: 422, message: 'The folder is not valid for this kind of source.' },
  folder_root_not_allowed: {
    status: 422,
    message:
      'The folder is not inside a folder the operator granted to this workspace (sources.folder_roots).',
  },
  kms_key_rejected: {
    status: 422,
    message: 'The KMS could not be reached or refused to make and open a data key with this key.',
  },
  egress_denied: { status: 422, message: 'Requests to this address are not allowed from this server.' },
  source_credentials_rejected: { status: 422, message: 'The source refused the credentials.' },
  source_permission_denied: {
    status: 422,
    message: 'The credentials are valid but lack permission to read this folder.',
  },
  source_folder_not_found: { status: 422, message: 'The folder does not exist at the source.' },
  rate_limited: {
    status: 429,
    message: 'Too many requests. Try again later.',
    retryAfter: true,
    details: RateLimitedDetail,
  },
  source_unreachable: { status: 502, message: 'The source could not be reached.' },
  sso_provider_error: {
    status: 502,
    message:
      'The identity provider could not be reached or refused the request. An admin can test the set-up.',
  },
  source_failed: { status: 502, message: 'The source answered with an error.' },
  payment_provider_failed: {
    status: 502,
    message: 'The payment provider could not be reached or refused the request. Try again later.',
  },
  provider_unavailable: {
    status: 502,
    message: 'The identity provider could not be reached. Try again later.',
  },
  internal_error: { status: 500, message: 'Internal server error.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
  billing_disabled: { status: 503, message: 'Billing is not enabled on this server.' },
  serving_unavailable: {
    status: 503,
    message: 'Answering is temporarily unavailable. Retry after the delay given.',
    retryAfter: true,
    details: ServingUnavailableDetail,
  },
  source_rate_limited: {
    status: 503,
    message: 'The source is limiting requests. Retry after the delay given.',
    retryAfter: true,
  },
} as const satisfies Record<string, { status: number; message: string; retryAfter?: true; details?: TSchema }>

/** A machine-readable error code from the table. */
export type ErrorCode = keyof typeof errorTable
