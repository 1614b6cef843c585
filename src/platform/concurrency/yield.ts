/**
 * Lets the event loop run what waits (other requests, timers, I/O) before going on. Work that
 * grows with a request's size (a manifest of many files) pauses here between slices, so that one
 * large request delays the others by one slice at most instead of by its whole length.
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Calls `work` on successive slices of `items` (at most `size` each, in order), yielding to the
 * event loop between two slices.
 */
export async function inSlices<T>(
  items: readonly T[],
  size: number,
  work: (slice: T[], offset: number) => void | Promise<void>,
): Promise<void> {
  for (let at = 0; at < items.length; at += size) {
    if (at > 0) await yieldToLoop()
    await work(items.slice(at, at + size), at)
  }
}
