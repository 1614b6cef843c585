/**
 * A look-up by key whose calls made together (in one go of synchronous code, such as the callbacks
 * of one `map`) are answered by one call of `many` with all their keys, made once that code has
 * run; a call after it starts the next batch. For work that asks for rows one at a time, side by
 * side (`Promise.all(rows.map(...))`), where one query for all costs about what one does.
 */
export function lookUpTogether<K, V>(
  many: (keys: K[]) => Promise<Map<K, V>>,
): (key: K) => Promise<V | undefined> {
  let batch: { keys: K[]; answer: Promise<Map<K, V>> } | null = null
  return (key) => {
    if (batch === null) {
      const keys: K[] = []
      const answer = Promise.resolve().then(() => {
        batch = null
        return many(keys)
      })
      batch = { keys, answer }
    }
    batch.keys.push(key)
    return batch.answer.then((found) => found.get(key))
  }
}
