import { describe, expect, test } from 'bun:test'
import { SseParser } from '../../web/src/api/stream'

describe('the console’s server-sent events parser', () => {
  test('an event split across chunks anywhere comes out once, whole, when its blank line arrives', () => {
    const text =
      'event: head\ndata: {"head":true}\n\n: keep-alive\n\nevent: delta\ndata: {"delta":"Hi [1]"}\n\n'
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser()
      const events = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))]
      expect(events).toEqual([
        { event: 'head', data: { head: true } },
        { event: 'delta', data: { delta: 'Hi [1]' } },
      ])
    }
  })

  test('CRLF line ends, several data lines, an unnamed event and a text payload are read as the format says', () => {
    const p = new SseParser()
    expect(p.push('event: error\r\ndata: {"error":\r\ndata: "boom"}\r\n\r\ndata: plain\n\n')).toEqual([
      { event: 'error', data: { error: 'boom' } },
      { event: 'message', data: 'plain' },
    ])
    // Nothing is given before the event's blank line.
    expect(p.push('event: done\ndata: {"done":true}\n')).toEqual([])
    expect(p.push('\n')).toEqual([{ event: 'done', data: { done: true } }])
  })
})
