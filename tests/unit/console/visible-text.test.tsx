import { describe, expect, test } from 'bun:test'
import { renderToString } from 'preact-render-to-string'
import { FileName } from '../../../web/src/components/file-name'
import { visibleText } from '../../../web/src/lib/visible-text'

// Issue 32, item 8: a file name with U+202E RIGHT-TO-LEFT OVERRIDE was shown as is, so
// `invoice\u202Efdp.exe` read as `invoiceexe.pdf`. The console shows such characters as markers.

describe('visibleText', () => {
  test('every bidirectional control is shown as a marker', () => {
    const controls = [
      0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
    ]
    for (const cp of controls) {
      const hex = cp.toString(16).toUpperCase().padStart(4, '0')
      expect(visibleText(`a${String.fromCodePoint(cp)}b`)).toBe(`a<U+${hex}>b`)
    }
    expect(visibleText('invoice\u202Efdp.exe')).toBe('invoice<U+202E>fdp.exe')
  })

  test('characters that draw nothing are shown as markers too', () => {
    expect(visibleText('a\u200Bb\u2060c\uFEFFd\u00ADe\u3164f\u034Fg\u2061h')).toBe(
      'a<U+200B>b<U+2060>c<U+FEFF>d<U+00AD>e<U+3164>f<U+034F>g<U+2061>h',
    )
  })

  test('names in any script, and the joiners and selectors they need, are left as they are', () => {
    for (const name of [
      'report 2024.pdf',
      'Ünïcödé café.docx',
      'تقرير.pdf', // Arabic: right to left by itself, no control
      'דוח שנתי.txt',
      'می\u200Cخواهم.md', // Persian with ZERO WIDTH NON-JOINER
      'family 👨\u200D👩\u200D👧.txt', // emoji joined by ZERO WIDTH JOINER
      'love ❤\uFE0F.txt', // emoji presentation selector
      'flag 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}.txt', // Scotland: tag characters
      'folder/sub/file.md',
    ]) {
      expect(visibleText(name)).toBe(name)
    }
  })
})

describe('FileName', () => {
  test('renders the name isolated in a bdi, with the override as a marker and a title saying why', () => {
    expect(renderToString(<FileName name={'invoice\u202Efdp.exe'} />)).toBe(
      '<bdi class="doc-path" title="This name holds invisible or direction-changing characters">invoice&lt;U+202E>fdp.exe</bdi>',
    )
    expect(renderToString(<FileName name="plain.txt" class="upload-path" />)).toBe(
      '<bdi class="upload-path">plain.txt</bdi>',
    )
  })
})
