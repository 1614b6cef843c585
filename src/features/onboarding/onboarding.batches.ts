// How a run's units are split into batch jobs.

/** Text a batch of small units holds beyond its first `batchSize` units. */
const BATCH_CHARS = 128 * 1024
/** Most units a batch of small ones holds. */
const BATCH_UNITS_MAX = 128

/** A unit as a run splits them into batches. */
export type BatchUnit = { id: string; parent_id: string | null; text_chars: number }

/**
 * A run's units in batches: `size` units each, or more while the batch holds at most BATCH_CHARS of
 * text (up to BATCH_UNITS_MAX). Small files share batches, so a run of 5,000 one-paragraph files
 * has 40 batches, not 313: fewer jobs to claim and settle, and groups large enough to overlap the
 * compile of the next one with the writes of this one (and to share their fsyncs and transactions).
 */
export function batchesOf<U extends BatchUnit>(units: U[], size: number): U[][] {
  const out: U[][] = []
  let batch: U[] = []
  let chars = 0
  for (const u of units) {
    const full = batch.length >= BATCH_UNITS_MAX || chars + u.text_chars > BATCH_CHARS
    if (batch.length >= size && full) {
      out.push(batch)
      batch = []
      chars = 0
    }
    batch.push(u)
    chars += u.text_chars
  }
  if (batch.length > 0) out.push(batch)
  return out
}
