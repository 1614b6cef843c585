/** The platform's status and its service objectives (`/v1/status`, `/v1/status/slo`). */
import { http, ok } from './client'
import type { PlatformStatus, Slo } from './types'

/** Each component's state as the server last measured it. */
export function getStatus(signal?: AbortSignal): Promise<PlatformStatus> {
  return ok(http.GET('/v1/status', { signal }))
}

/** The service objectives. */
export function getSlo(signal?: AbortSignal): Promise<Slo> {
  return ok(http.GET('/v1/status/slo', { signal }))
}
