/**
 * The `limit` best (score, id) pairs of those offered, higher score first, then lower id: a heap
 * whose root is the worst kept, so a pair that cannot enter costs one comparison.
 */
export class TopHeap {
  private readonly scores: number[] = []
  private readonly ids: number[] = []

  constructor(private readonly limit: number) {}

  /** Offers a pair; kept if it beats the worst kept once the heap is full. */
  offer(score: number, id: number): void {
    const { scores, ids } = this
    if (scores.length < this.limit) {
      scores.push(score)
      ids.push(id)
      this.up(scores.length - 1)
    } else if (this.limit > 0 && this.worse(0, score, id)) {
      scores[0] = score
      ids[0] = id
      this.down(0)
    }
  }

  /** The kept pairs, best first. */
  sorted(): { id: number; score: number }[] {
    return this.ids
      .map((id, i) => ({ id, score: this.scores[i]! }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
  }

  /** Whether kept entry i ranks below (score, id). */
  private worse(i: number, score: number, id: number): boolean {
    const s = this.scores[i]!
    return s < score || (s === score && this.ids[i]! > id)
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.worse(i, this.scores[p]!, this.ids[p]!)) break
      this.swap(i, p)
      i = p
    }
  }

  // The children are compared one then the other, and entries swapped through locals: no array a
  // step (a pool's hundreds of offers made hundreds of them a question).
  private down(i: number): void {
    const n = this.scores.length
    for (;;) {
      let w = i
      const left = 2 * i + 1
      if (left < n && this.worse(left, this.scores[w]!, this.ids[w]!)) w = left
      if (left + 1 < n && this.worse(left + 1, this.scores[w]!, this.ids[w]!)) w = left + 1
      if (w === i) return
      this.swap(i, w)
      i = w
    }
  }

  private swap(a: number, b: number): void {
    const { scores, ids } = this
    const score = scores[a]!
    scores[a] = scores[b]!
    scores[b] = score
    const id = ids[a]!
    ids[a] = ids[b]!
    ids[b] = id
  }
}
