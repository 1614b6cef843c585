/**
 * The workspace's security settings (admin): the IP allowlist, with the caller's address as the
 * server sees it, and the customer-managed encryption key (`/v1/enterprise/ip-allowlist`,
 * `/v1/enterprise/kms-key`).
 */
import { http, ok } from './client'
import type { Allowlist, AllowlistReq, KmsKey, KmsKeyReq } from './types'

/** The allowlist, your address and whether it is listed. */
export function getAllowlist(signal?: AbortSignal): Promise<Allowlist> {
  return ok(http.GET('/v1/enterprise/ip-allowlist', { signal }))
}

/** Replaces the allowlist; 409 `would_lock_out` unless `confirm_lockout` when your address is left out. */
export function putAllowlist(body: AllowlistReq): Promise<Allowlist> {
  return ok(http.PUT('/v1/enterprise/ip-allowlist', { body }))
}

/** Where the workspace's key lives, its status and what it sealed. */
export function getKmsKey(signal?: AbortSignal): Promise<KmsKey> {
  return ok(http.GET('/v1/enterprise/kms-key', { signal }))
}

/** Sets the key, or turns it off and on. */
export function putKmsKey(body: KmsKeyReq): Promise<KmsKey> {
  return ok(http.PUT('/v1/enterprise/kms-key', { body }))
}

/**
 * Rotates the key: every data key is re-wrapped in the background; an `aws-kms` key moves to
 * `keyId` of the same KMS when given.
 */
export function rotateKmsKey(keyId?: string): Promise<KmsKey> {
  return ok(http.POST('/v1/enterprise/kms-key/rotate', { body: keyId ? { key_id: keyId } : {} }))
}
