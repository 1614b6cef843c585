import { fail } from '../../platform/errors/errors'
import { LlmUnavailableError } from '../../platform/llm/server-request'

/** 503 `serving_unavailable` with Retry-After: the engine is saturated, or the model server is down. */
export function unavailable(message: string, retryAfter: number) {
  return fail(
    'serving_unavailable',
    message,
    { retry_after_seconds: retryAfter },
    { 'retry-after': String(retryAfter) },
  )
}

/** A model server that is unavailable becomes the 503; any other failure is thrown as it is. */
export function rethrowUnavailable(e: unknown): never {
  if (e instanceof LlmUnavailableError) throw unavailable(e.message, e.retryAfterSeconds)
  throw e
}
