/** Slots of a new table (it doubles as words come). */
const SLOTS = 1024

/**
 * The words a thread has seen, by their characters: an open-addressing table of their hashes
 * (wordscan's FNV-1a) whose slots name an index, with every word's characters in one pool. A scan
 * finds a word it has seen without making a string of it and without reading any object of it, on
 * memory packed tight: looking words up in a Map of their objects was two thirds of a run's FTS5
 * rows' time (issue 38, session 40). Indexes run from 0 in the order words were added.
 */
export class WordTable {
  /** Per slot: the word's hash, then its index + 1 (0: an empty slot). */
  private slots!: Int32Array
  private mask = 0
  private pool!: Uint16Array
  private used = 0
  /** Per index: where its characters start in the pool, and how many there are. */
  private starts!: Int32Array
  private lens!: Int32Array
  size = 0

  constructor() {
    this.clear()
  }

  /** The index of the word text[start, end), whose hash is `h`; -1 when it has not been added. */
  find(text: string, start: number, end: number, h: number): number {
    const len = end - start
    const slots = this.slots
    let i = h & this.mask
    for (;;) {
      const at = slots[2 * i + 1]! - 1
      if (at < 0) return -1
      if (slots[2 * i] === h && this.lens[at] === len) {
        const pool = this.pool
        const s = this.starts[at]!
        let k = 0
        while (k < len && pool[s + k] === text.charCodeAt(start + k)) k++
        if (k === len) return at
      }
      i = (i + 1) & this.mask
    }
  }

  /** Adds the word text[start, end) (hash `h`), not there yet; returns its index. */
  add(text: string, start: number, end: number, h: number): number {
    const len = end - start
    if (2 * (this.size + 1) > this.mask + 1) this.grow()
    if (this.used + len > this.pool.length) this.pool = grown(this.pool, this.used + len)
    if (this.size === this.starts.length) {
      this.starts = grown(this.starts, this.size + 1)
      this.lens = grown(this.lens, this.size + 1)
    }
    for (let k = 0; k < len; k++) this.pool[this.used + k] = text.charCodeAt(start + k)
    const at = this.size++
    this.starts[at] = this.used
    this.lens[at] = len
    this.used += len
    this.place(h, at)
    return at
  }

  /** Forgets every word (indexes start from 0 again), its memory as when new. */
  clear(): void {
    this.slots = new Int32Array(2 * SLOTS)
    this.mask = SLOTS - 1
    this.pool = new Uint16Array(16 * SLOTS)
    this.starts = new Int32Array(SLOTS / 2)
    this.lens = new Int32Array(SLOTS / 2)
    this.used = 0
    this.size = 0
  }

  private place(h: number, at: number): void {
    let i = h & this.mask
    while (this.slots[2 * i + 1] !== 0) i = (i + 1) & this.mask
    this.slots[2 * i] = h
    this.slots[2 * i + 1] = at + 1
  }

  /** Twice the slots, every word placed again (a table at most half full keeps probes short). */
  private grow(): void {
    const old = this.slots
    this.mask = 2 * (this.mask + 1) - 1
    this.slots = new Int32Array(2 * (this.mask + 1))
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.place(old[i]!, old[i + 1]! - 1)
  }
}

/** A copy of `a` with room for at least `need` elements (twice as many, or more). */
function grown<T extends Uint16Array | Int32Array>(a: T, need: number): T {
  const out = new (a.constructor as new (n: number) => T)(Math.max(2 * a.length, need))
  out.set(a)
  return out
}
