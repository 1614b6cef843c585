import { describe, expect, test } from 'bun:test'
import { cartEntry, compileCartridge, searchCartridges } from '../../../src/features/engine/cart/index'
import {
  defaultWeights,
  planQuery,
  sentenceScores,
  sequenceFeatures,
  termOf,
} from '../../../src/features/engine/rank/index'
import { variantsOf } from '../../../src/features/engine/text/index'

const qw = new Float64Array([1, 1, 1])
const known = (vocab: string[]) => (c: string[]) => c.map((t) => vocab.includes(t))
const extending = (vocab: string[]) => (t: string) => vocab.filter((v) => v !== t && v.startsWith(t))

describe('word-family variants and near-synonyms', () => {
  test('a term finds the known terms that extend it, that it extends, and its WordNet synonyms', () => {
    const vocab = ['invent', 'inventor', 'govern', 'die', 'death', 'kill']
    const [invent, inventor, perished] = variantsOf(
      [termOf('invent'), termOf('inventors'), termOf('perished')],
      extending(vocab),
      known(vocab),
    )
    expect(invent).toEqual([]) // its only extension is a term of the question itself
    expect(inventor).toEqual([]) // likewise for its prefix
    expect(perished).toEqual(['die']) // WordNet: perish, die, decease, ...; only `die` is known
    expect(variantsOf(['governor'], extending(vocab), known(vocab))).toEqual([['govern']])
  })

  test('short stems and numbers get no prefix variants', () => {
    const vocab = ['war', 'warsaw', '1960', '19601']
    expect(variantsOf(['war', '1960'], extending(vocab), known(vocab))).toEqual([[], []])
  })

  test('the cart strategy finds a sentence that only paraphrases the question', () => {
    const cart = compileCartridge(
      'The new governor rebuilt the old harbour in stone. Later the governor died of a fever in the port town.\n\nShips still call at the harbour every week.',
    )
    const [best] = searchCartridges([cartEntry(1, cart)], planQuery('When did the governor perish?'), 3)
    const top = best!.sentences[0]!
    expect(cart.text.slice(top.start, top.end)).toContain('died of a fever')
  })

  test('question terms in the sentence just before raise the pick score, not the passage rank', () => {
    const f = sequenceFeatures([0, -1, -1, -1], [0, 0, 0, 0], 0, 4, 0, new Set(), qw)
    const alone = sentenceScores(f, 0, 0b111, 0, qw, 3, defaultWeights, 0)
    const after = sentenceScores(f, 0, 0b111, 0, qw, 3, defaultWeights, 0b110)
    expect(after.rank).toBe(alone.rank)
    expect(after.pick).toBeGreaterThan(alone.pick)
    // Terms the sentence holds itself or the title supplies earn nothing more.
    expect(sentenceScores(f, 0b110, 0b111, 0, qw, 3, defaultWeights, 0b110).pick).toBe(
      sentenceScores(f, 0b110, 0b111, 0, qw, 3, defaultWeights, 0).pick,
    )
  })
})
