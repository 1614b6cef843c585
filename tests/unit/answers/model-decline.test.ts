import { describe, expect, test } from 'bun:test'
import { declineState, MODEL_DECLINES, openReply } from '../../../src/features/answers/answers.text'

/** A model's streamed reply: its pieces, then its finish reason. */
async function* reply(
  pieces: string[],
  finish: string | null = 'stop',
): AsyncGenerator<string, string | null> {
  for (const p of pieces) yield p
  return finish
}

async function rest(g: AsyncGenerator<string, string | null | undefined>) {
  const out: string[] = []
  for (;;) {
    const n = await g.next()
    if (n.done) return { out, end: n.value }
    out.push(n.value)
  }
}

describe("a model's decline", () => {
  test('is its marker at the start of the reply, whatever follows', () => {
    expect(MODEL_DECLINES).toBe('NO_ANSWER')
    expect(declineState('NO_ANSWER')).toBe('declined')
    expect(declineState('  NO_ANSWER.')).toBe('declined')
    expect(declineState('NO_AN')).toBe('maybe')
    expect(declineState('')).toBe('maybe')
    expect(declineState('No answer is given, but [1] says 27 days.')).toBe('answer')
    expect(declineState('The sources say NO_ANSWER')).toBe('answer')
  })

  test('is recognised across pieces, before anything is relayed', async () => {
    const g = reply(['NO', '_ANS', 'WER', ' (nothing)'])
    const r = await openReply(g, await g.next())
    expect(r.declined).toBe(true)
  })

  test('an answer that starts like the marker is given back whole, the rest still streaming', async () => {
    const g = reply(['NO', 'RWAY', ' is the answer [1].'])
    const r = await openReply(g, await g.next())
    expect(r.declined).toBe(false)
    expect(r.first).toEqual({ done: false, value: 'NORWAY' })
    expect(await rest(r.pieces)).toEqual({ out: [' is the answer [1].'], end: 'stop' })
  })

  test("a reply that ends while it could still be the marker keeps the model's finish reason", async () => {
    const g = reply(['NO'], 'length')
    const r = await openReply(g, await g.next())
    expect(r.declined).toBe(false)
    expect(r.first).toEqual({ done: false, value: 'NO' })
    expect(await rest(r.pieces)).toEqual({ out: [], end: 'length' })
    const empty = reply([], 'stop')
    const e = await openReply(empty, await empty.next())
    expect(e.first).toEqual({ done: true, value: 'stop' })
  })

  test('an ordinary answer is given back from its first piece', async () => {
    const g = reply(['Full-time ', 'staff have 27 days [1].'])
    const r = await openReply(g, await g.next())
    expect(r.first).toEqual({ done: false, value: 'Full-time ' })
    expect(await rest(r.pieces)).toEqual({ out: ['staff have 27 days [1].'], end: 'stop' })
  })
})
