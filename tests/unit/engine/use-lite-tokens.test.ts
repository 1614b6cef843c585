import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { EmbeddingsModel } from '@energetic-ai/embeddings'
import { USE_LITE_PACKAGE } from '../../../scripts/build-use-lite-int8'
import { PieceTokenizer, type Vocabulary } from '../../../src/features/engine/support/index'

// The tokenizer holds the vocabulary packed (typed arrays and open-addressed tables of hashes), so
// the parsed vocab.json is garbage once it is made (issue 38: the encoder thread's load). Its pieces
// must stay the package's: use-lite.test.ts compares them on texts; these cover what packing can
// get wrong (a piece listed twice, pieces beyond the first plane, pieces sharing starts).
const vocabulary = JSON.parse(readFileSync(USE_LITE_PACKAGE.vocabulary, 'utf8')) as Vocabulary

const theirs = (v: Vocabulary) =>
  (
    new EmbeddingsModel({ vocabulary: v, model: null } as never) as unknown as {
      tokenizer: { encode(t: string): number[] }
    }
  ).tokenizer

describe("the encoder's tokenizer, packed", () => {
  test('keeps nothing of the vocabulary it was made from: the same pieces once the parsed JSON is emptied', () => {
    const copy = structuredClone(vocabulary)
    const ours = new PieceTokenizer(copy)
    const texts = ['How do I rotate an API key?', 'ﬁne Ⅻ ①② 😀 naïve café', 'the 1990s, 3.14 and don’t']
    const before = texts.map((t) => ours.encode(t))
    for (const entry of copy) {
      entry[0] = ''
      entry[1] = 0
    }
    copy.length = 0
    expect(texts.map((t) => ours.encode(t))).toEqual(before)
    expect(before).toEqual(texts.map((t) => theirs(vocabulary).encode(t)))
  })

  test("a small vocabulary's pieces as the package splits them: duplicates keep their last id and score, astral pieces, shared starts", () => {
    const reserved: Vocabulary = [
      ['<unk>', 0],
      ['<s>', 0],
      ['</s>', 0],
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]
    const small: Vocabulary = [
      ...reserved,
      ['\u2581', -2],
      ['\u2581ab', -3],
      ['a', -1],
      ['ab', -2.5],
      ['abc', -4],
      ['b', -1],
      ['c', -1],
      ['ab', -0.5], // listed twice: this id and score win
      ['😀', -1],
      ['😀😀', -1.5],
      ['\u2581😀', -1.2],
      ['x😀y', -0.1],
      ['\u2581abc', -9],
    ]
    const ours = new PieceTokenizer(small)
    const texts = [
      'ab',
      'abc',
      'ab ab',
      '😀😀 😀',
      'x😀y',
      'xy😀',
      'zz ab q',
      'cabbage',
      '',
      ' ',
      'a b c abc',
    ]
    for (const text of texts)
      expect({ text, ids: ours.encode(text) }).toEqual({ text, ids: theirs(small).encode(text) })
    // The duplicate's last id is the one used.
    expect(ours.encode('ab')).toContain(13)
  })

  test('ties between splits, and totals of 0, resolved as the package resolves them', () => {
    const reserved: Vocabulary = ['<unk>', '<s>', '</s>', 'r3', 'r4', 'r5'].map((p) => [p, 0])
    const ties: Vocabulary = [
      ...reserved,
      ['\u2581', 0],
      ['x', -1],
      ['y', -1],
      ['xy', -2],
      ['z', 0],
      ['yz', -1],
      ['xyz', -2],
      ['\u2581x', -1],
    ]
    const ours = new PieceTokenizer(ties)
    for (const text of ['xy', 'xyz', 'zz', 'x y z', 'yzxy', 'zxyzq', 'xyxyxy z'])
      expect({ text, ids: ours.encode(text) }).toEqual({ text, ids: theirs(ties).encode(text) })
  })
})
