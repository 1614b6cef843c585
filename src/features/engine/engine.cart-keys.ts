// What a section's cartridge key says: built, waiting for its build, or failed. No imports: the
// engine's tables declare a partial index by it.

/**
 * A section's cartridge key before its cartridge is built (onboarding indexes text first, the
 * deferred build compiles it): never an object's key, which has no colon.
 */
export const PENDING = 'pending:'
/** The key of a section whose cartridge failed to compile: the cart strategy passes over it. */
export const FAILED = 'failed:'

/**
 * A section row whose cartridge is built and its size not recorded: the condition of the partial
 * index `engine_sections_unmeasured` and of the query it serves, written alike (SQLite uses a
 * partial index only for a query whose WHERE has its condition's terms).
 */
export const UNMEASURED = `cart_bytes = 0 AND cart_key NOT LIKE '${PENDING}%' AND cart_key NOT LIKE '${FAILED}%'`

/** Whether a key names a cartridge in the store (not one waiting to be built or that failed). */
export function isBuilt(cartKey: string): boolean {
  return !cartKey.startsWith(PENDING) && !cartKey.startsWith(FAILED)
}
