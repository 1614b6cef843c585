import { describe, expect, test } from 'bun:test'
import { textWindow } from '../../src/features/ingest/lib/text-window'
import { attachmentDisposition } from '../../src/platform/http/content-disposition'

describe('attachmentDisposition', () => {
  test('an ASCII name is given as it is, in both forms', () => {
    expect(attachmentDisposition('reports/2024/q1.pdf')).toBe(
      `attachment; filename="q1.pdf"; filename*=UTF-8''q1.pdf`,
    )
  })

  test('accents are dropped from the ASCII form and percent-encoded as UTF-8 in filename*', () => {
    expect(attachmentDisposition('Résumé (final).docx')).toBe(
      `attachment; filename="Resume (final).docx"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28final%29.docx`,
    )
    expect(attachmentDisposition('報告.pdf')).toBe(
      `attachment; filename="__.pdf"; filename*=UTF-8''%E5%A0%B1%E5%91%8A.pdf`,
    )
  })

  test('direction controls, invisible and control characters go from both forms', () => {
    const header = attachmentDisposition('invoice\u202Efdp.exe')
    expect(header).toBe(`attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`)
    expect(attachmentDisposition('a\u200Bb\u0007c\u0085d.txt')).toBe(
      `attachment; filename="abcd.txt"; filename*=UTF-8''abcd.txt`,
    )
  })

  test('quotes and the characters file systems refuse cannot break out of the quoted name', () => {
    // Stored paths have no backslash (uploads turn it into `/`), so only the last segment is named.
    const header = attachmentDisposition('dir/say "hi"; x=1 <b>|?*.txt')
    expect(header).toBe(
      `attachment; filename="say _hi_; x=1 _b____.txt"; filename*=UTF-8''say%20%22hi%22%3B%20x%3D1%20%3Cb%3E%7C%3F%2A.txt`,
    )
    expect(header.split('"').length).toBe(3)
  })

  test('a name of nothing printable is "download"', () => {
    expect(attachmentDisposition('\u202E\u200B')).toBe(
      `attachment; filename="download"; filename*=UTF-8''download`,
    )
    expect(attachmentDisposition('...')).toBe(`attachment; filename="download"; filename*=UTF-8''download`)
  })
})

describe('textWindow', () => {
  const streamOf = (text: string, chunk: number) => {
    const bytes = new TextEncoder().encode(text)
    let at = 0
    let cancelled = false
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= bytes.length) return c.close()
        c.enqueue(bytes.slice(at, at + chunk))
        at += chunk
      },
      cancel() {
        cancelled = true
      },
    })
    return { stream, read: () => at, cancelled: () => cancelled }
  }

  test('answers code units [offset, offset + limit) of the text, across chunks cut inside characters', async () => {
    const text = 'Zürich — 東京 😀 '.repeat(200)
    for (const [offset, limit] of [
      [0, 10],
      [5, 300],
      [999, 1000],
      [text.length - 3, 50],
    ] as const) {
      expect(await textWindow(streamOf(text, 7).stream, offset, limit)).toBe(
        text.slice(offset, offset + limit),
      )
    }
  })

  test('stops reading once the window is full', async () => {
    const text = 'x'.repeat(100_000)
    const s = streamOf(text, 1000)
    expect(await textWindow(s.stream, 10, 20)).toBe('x'.repeat(20))
    expect(s.read()).toBeLessThan(5_000)
    expect(s.cancelled()).toBe(true)
  })

  test('never ends between the two halves of a surrogate pair', async () => {
    const text = 'ab😀cd'
    expect(await textWindow(streamOf(text, 3).stream, 0, 3)).toBe('ab')
    expect(await textWindow(streamOf(text, 3).stream, 0, 4)).toBe('ab😀')
  })
})
