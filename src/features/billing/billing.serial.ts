/**
 * Runs work one at a time per key (a customer, a workspace), in the order it was asked for, in
 * this process: the next piece starts when the one before it has settled, failed or not.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>()

  /** Runs `work` after the key's earlier work has settled. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve()
    const run = before.then(work, work)
    const tail = run.catch(() => undefined)
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return run
  }
}
