/**
 * Sections in order of their score bound, best first, equal bounds by index: a binary heap built in
 * linear time, so a search that stops after a few hundred of thousands of reached sections pays for
 * those it takes, not for sorting them all.
 */
export class BoundQueue {
  private readonly heap: Int32Array
  private size: number

  /** `bounds[i]` is the bound of the section `ids[i]`. */
  constructor(
    private readonly ids: ArrayLike<number>,
    private readonly bounds: Float64Array,
  ) {
    this.size = ids.length
    this.heap = new Int32Array(this.size)
    for (let i = 0; i < this.size; i++) this.heap[i] = i
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i)
  }

  /** The position (in `ids`) of the best section left, or -1 when none is. */
  peek(): number {
    return this.size === 0 ? -1 : this.heap[0]!
  }

  /** Removes and returns the position of the best section left, or -1 when none is. */
  pop(): number {
    if (this.size === 0) return -1
    const top = this.heap[0]!
    this.size--
    if (this.size > 0) {
      this.heap[0] = this.heap[this.size]!
      this.down(0)
    }
    return top
  }

  /** Whether position a comes before position b. */
  private before(a: number, b: number): boolean {
    const x = this.bounds[a]!
    const y = this.bounds[b]!
    return x > y || (x === y && this.ids[a]! < this.ids[b]!)
  }

  private down(i: number): void {
    const h = this.heap
    for (;;) {
      const l = 2 * i + 1
      if (l >= this.size) return
      const r = l + 1
      const c = r < this.size && this.before(h[r]!, h[l]!) ? r : l
      if (!this.before(h[c]!, h[i]!)) return
      const t = h[i]!
      h[i] = h[c]!
      h[c] = t
      i = c
    }
  }
}
