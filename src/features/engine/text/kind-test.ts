import { prepareHypernyms } from './hypernyms'

/**
 * Tests senses against the kind a question asks for, remembering its answers; tests are shared by
 * the questions asking for the same kind (see `kindTest`), as the answers never change. The memo is
 * a byte per slot (`slotOf`: senses get one as any test is first asked about them) up to the last
 * this test was asked about, not one per WordNet sense (80 KB).
 * A sense is of the kind when its closure holds one of the kind's senses.
 */
export class KindTest {
  /** Per slot: 0 not known yet, IS or ISNT; grown as senses with later slots are asked. */
  private state: Uint8Array = new Uint8Array(64)

  constructor(private readonly senses: number[]) {}

  /** Bytes its memo holds. */
  get bytes(): number {
    return this.state.byteLength
  }

  /** Whether sense `s` is the kind or below it (-1, no sense, never is). */
  has(s: number): boolean {
    if (s < 0) return false
    const at = slot(s)
    const known = at < this.state.length ? this.state[at]! : 0
    return known === IS || (known !== ISNT && this.resolve(s, at))
  }

  /** Resolves a sense from its ancestors (shared by every test): one of them is the kind's. Records the answer. */
  private resolve(s: number, at: number): boolean {
    const from = closure(s)
    const to = from + pool[from - 1]!
    const kind = this.senses
    let is = false
    // Loops, not `includes` a closure's sense: a new kind's test resolves every sense it meets once.
    for (let i = from; i < to && !is; i++) {
      const a = pool[i]!
      for (let k = 0; k < kind.length; k++)
        if (kind[k] === a) {
          is = true
          break
        }
    }
    this.state = mark(this.state, at, is ? IS : ISNT)
    return is
  }
}

/** Each sense's slot in the tests' memos (-1 until asked), given in the order senses are first asked. */
let slotOf = new Int32Array(0)
let slots = 0

function slot(s: number): number {
  if (slotOf.length === 0) slotOf = new Int32Array(prepareHypernyms().upOff.length - 1).fill(-1)
  const at = slotOf[s]!
  if (at >= 0) return at
  slotOf[s] = slots
  return slots++
}

/** `state` with `at` set to `v`, grown (doubled) first when too short. */
function mark(state: Uint8Array, at: number, v: number): Uint8Array {
  let out = state
  if (at >= state.length) {
    out = new Uint8Array(Math.min(Math.max(2 * state.length, at + 1), slotOf.length))
    out.set(state)
  }
  out[at] = v
  return out
}

// Per sense, once asked: the sense and all its ancestors, packed in `pool` as their count then the
// senses; `closureAt` is where a sense's senses start (0: not yet). The words of a text share a few
// thousand senses, and each closure is a dozen or so numbers.
let closureAt = new Int32Array(0)
let pool = new Int32Array(1 << 12)
let used = 0

/** Where the senses of a sense's closure (it and every sense above it; the hierarchy has no cycles) start in `pool`. */
function closure(s: number): number {
  if (closureAt.length === 0) closureAt = new Int32Array(prepareHypernyms().upOff.length - 1)
  if (closureAt[s]! > 0) return closureAt[s]!
  const { up, upOff } = prepareHypernyms()
  const all = new Set<number>([s])
  for (let i = upOff[s]!; i < upOff[s + 1]!; i++) {
    const from = closure(up[i]!)
    for (let j = from; j < from + pool[from - 1]!; j++) all.add(pool[j]!)
  }
  if (used + all.size + 1 > pool.length) {
    const grown = new Int32Array(Math.max(2 * pool.length, used + all.size + 1))
    grown.set(pool)
    pool = grown
  }
  pool[used] = all.size
  const from = used + 1
  for (const a of all) pool[++used] = a
  used++
  closureAt[s] = from
  return from
}

const tests = new Map<string, KindTest>()
/**
 * At most this many bytes of memos are kept, least recently asked out first: each is a byte per
 * sense any test was asked (a few KB for the 24 SQuAD articles, at most 80 KB), against 80 KB each
 * and 64 kinds before.
 */
const TESTS_BYTES = 4 << 20

/** The shared test of a kind (questions mostly ask for a few: a person, a place, a year, a company). */
export function kindTest(senses: number[]): KindTest {
  const key = senses.join(' ')
  let t = tests.get(key)
  if (t) tests.delete(key)
  else {
    let bytes = 0
    for (const kept of tests.values()) bytes += kept.bytes
    for (const [k, kept] of tests) {
      if (bytes < TESTS_BYTES) break
      tests.delete(k)
      bytes -= kept.bytes
    }
    t = new KindTest(senses)
  }
  tests.set(key, t)
  return t
}

const IS = 1
const ISNT = 2
