import { describe, expect, test } from 'bun:test'
import { decodeText } from '../../../src/features/ingest/extract/extract.encoding.ts'
import { cutText } from '../../../src/features/ingest/extract/extract.sections.ts'
import { extensionOf } from '../../../src/features/ingest/extract/extract.text-util.ts'
import {
  extractText,
  SECTION_MAX_CHARS,
  SECTION_MIN_CHARS,
  splitSections,
} from '../../../src/features/ingest/extract/extract.ts'

const words = (n: number, w = 'word') => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ')
const para = (chars: number) =>
  'Lorem ipsum dolor sit amet. '
    .repeat(Math.ceil(chars / 28))
    .slice(0, chars)
    .trim()
const enc = new TextEncoder()

describe('splitSections', () => {
  test('the default bounds are exported and ordered', () => {
    expect(SECTION_MIN_CHARS).toBeLessThan(SECTION_MAX_CHARS)
  })

  test('a short document is one section with its first title', () => {
    const s = splitSections([
      { title: null, text: 'intro' },
      { title: 'A', text: 'A\n\nbody' },
    ])
    expect(s).toEqual([{ title: 'A', text: 'intro\n\nA\n\nbody' }])
  })

  test('headings start sections once the current one reaches the minimum; tiny ones merge', () => {
    const pieces = [
      { title: 'One', text: para(300) },
      { title: 'Two', text: para(50) },
      { title: 'Three', text: para(400) },
      { title: 'Four', text: para(500) },
    ]
    const s = splitSections(pieces, { minChars: 340, maxChars: 1000 })
    expect(s.map((x) => x.title)).toEqual(['One', 'Three', 'Four'])
    expect(s[0]!.text).toBe(`${pieces[0]!.text}\n\n${pieces[1]!.text}`)
  })

  test('a small tail joins the section before it', () => {
    const pieces = [
      { title: 'A', text: para(600) },
      { title: 'B', text: para(600) },
      { title: 'C', text: para(100) },
    ]
    const s = splitSections(pieces, { minChars: 500, maxChars: 1000 })
    expect(s.map((x) => x.title)).toEqual(['A', 'B'])
    expect(s[1]!.text).toBe(`${pieces[1]!.text}\n\n${pieces[2]!.text}`)
  })

  test('an oversized piece is cut at paragraphs, the parts marked as continued', () => {
    const text = [para(700), para(700), para(700)].join('\n\n')
    const s = splitSections([{ title: 'Big', text }], { minChars: 100, maxChars: 1000 })
    expect(s.map((x) => x.title)).toEqual(['Big', 'Big (continued)', 'Big (continued)'])
    for (const x of s) expect(x.text.length).toBeLessThanOrEqual(1000)
    expect(s.map((x) => x.text).join('\n\n')).toBe(text)
  })

  test('untitled pages merge up to the target and keep their page range', () => {
    const pages = Array.from({ length: 10 }, (_, i) => ({ title: null, text: para(400), page: i + 1 }))
    const s = splitSections(pages, { minChars: 100, targetChars: 1000, maxChars: 2000 })
    expect(s.map((x) => [x.page, x.pageEnd])).toEqual([
      [1, 3],
      [4, 6],
      [7, 9],
      [10, undefined],
    ])
  })

  test("a chapter's last small page stays with its chapter rather than opening the next", () => {
    const page = (n: number, title: string, chars: number, boundary: 'strong' | 'weak') => ({
      title,
      text: para(chars),
      page: n,
      boundary,
    })
    const s = splitSections(
      [
        page(1, 'Ch1', 900, 'strong'),
        page(2, 'Ch1', 900, 'weak'),
        page(3, 'Ch1', 300, 'weak'),
        page(4, 'Ch2', 900, 'strong'),
      ],
      { minChars: 500, targetChars: 1500, maxChars: 2500 },
    )
    expect(s.map((x) => [x.title, x.page, x.pageEnd])).toEqual([
      ['Ch1', 1, 3],
      ['Ch2', 4, undefined],
    ])
  })

  test('no section exceeds the maximum, whatever the input', () => {
    const pieces = [
      { title: null, text: words(5000) },
      { title: 'x', text: 'y'.repeat(3000) },
      { title: 'z', text: para(10) },
    ]
    const s = splitSections(pieces, { minChars: 200, maxChars: 1000 })
    for (const x of s) expect(x.text.length).toBeLessThanOrEqual(1000)
    const joined = s.map((x) => x.text).join(' ')
    expect(joined).toContain('word4999')
    expect(joined.replace(/[^y]/g, '').length).toBe(3000)
  })

  test('cutting never splits a surrogate pair', () => {
    const parts = cutText('😀'.repeat(50), 7)
    for (const p of parts) expect(p).toMatch(/^(😀)+$/u)
    expect(parts.join('')).toBe('😀'.repeat(50))
  })

  test('empty pieces are dropped', () => {
    expect(splitSections([{ title: 'a', text: '  ' }])).toEqual([])
  })

  test('a section that starts under a heading takes its name; a glued page joins its sentence with a space', () => {
    const pieces = [
      { title: 'Dragon', text: para(900), page: 1, boundary: 'weak' as const },
      { title: null, text: 'goes on here.', page: 2, glue: ' ' },
      { title: null, text: para(900), page: 3, boundary: 'weak' as const },
      { title: 'Golem', text: para(900), page: 3, boundary: 'weak' as const },
    ]
    const s = splitSections(pieces, { minChars: 100, targetChars: 800, maxChars: 2000 })
    expect(s.map((x) => x.title)).toEqual(['Dragon', 'Dragon', 'Golem'])
    expect(s[0]!.text).toBe(`${pieces[0]!.text} goes on here.`)
    expect(s.map((x) => [x.page, x.pageEnd])).toEqual([
      [1, 2],
      [3, undefined],
      [3, undefined],
    ])
  })

  test('pages marked none never open a section unless the current one is full', () => {
    const pages = Array.from({ length: 6 }, (_, i) => ({
      title: i === 3 ? 'Heading' : null,
      text: para(400),
      page: i + 1,
      boundary: i === 3 ? ('weak' as const) : ('none' as const),
    }))
    const s = splitSections(pages, { minChars: 100, targetChars: 500, maxChars: 1300 })
    // Pages 1-3 fit (1,204 characters); the heading on page 4 opens the next section.
    expect(s.map((x) => [x.title, x.page, x.pageEnd])).toEqual([
      [null, 1, 3],
      ['Heading', 4, 6],
    ])
  })
})

describe('page ranges', () => {
  test('each page of a PDF is a range of the text; a blank page is empty where the next starts', async () => {
    const { pageRanges } = await import('../../../src/features/ingest/extract/extract.pages.ts')
    const sections = splitSections(
      [
        { title: 'A', text: 'Page one text.', page: 1 },
        { title: null, text: 'Page two', page: 2, boundary: 'none' },
        { title: null, text: 'goes on.', page: 4, glue: ' ' },
      ],
      {},
    )
    const text = sections.map((x) => x.text).join('\n\n')
    expect(text).toBe('Page one text.\n\nPage two goes on.')
    const ranges = pageRanges(text, sections, 5)
    expect(ranges).toEqual([
      { number: 1, start: 0, end: 14 },
      { number: 2, start: 16, end: 24 },
      { number: 3, start: 25, end: 25 },
      { number: 4, start: 25, end: 33 },
      { number: 5, start: 33, end: 33 },
    ])
    expect(ranges.map((r) => text.slice(r.start, r.end))).toEqual([
      'Page one text.',
      'Page two',
      '',
      'goes on.',
      '',
    ])
  })
})

describe('text decoding', () => {
  test('UTF-8, UTF-16 with and without BOM, and cp1252 are told apart', () => {
    expect(decodeText(enc.encode('Grüße'))).toEqual({ text: 'Grüße', encoding: 'utf-8' })
    const le = new Uint8Array([0xff, 0xfe, 0x47, 0, 0x72, 0, 0xfc, 0, 0xdf, 0, 0x65, 0])
    expect(decodeText(le)).toEqual({ text: 'Grüße', encoding: 'utf-16le' })
    const noBom = new Uint8Array([0x48, 0, 0x61, 0, 0x6c, 0, 0x6c, 0, 0x6f, 0, 0x20, 0, 0x77, 0, 0x6f, 0])
    expect(decodeText(noBom)).toEqual({ text: 'Hallo wo', encoding: 'utf-16le' })
    const cp1252 = new Uint8Array([
      0x93, 0x51, 0x75, 0x6f, 0x74, 0x65, 0x94, 0x20, 0x63, 0x6f, 0x73, 0x74, 0x73, 0x20, 0x35, 0x80,
    ])
    expect(decodeText(cp1252).text).toBe('“Quote” costs 5€')
  })

  test('a declared latin-1 label on UTF-8 bytes is overruled by the bytes', () => {
    expect(decodeText(enc.encode('café'), 'iso-8859-1')).toEqual({ text: 'café', encoding: 'utf-8' })
    expect(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'latin1')).toEqual({
      text: 'café',
      encoding: 'windows-1252',
    })
  })
})

describe('plain text and JSON', () => {
  test('a cp1252 text file decodes its curly quotes and euro sign', async () => {
    const bytes = new Uint8Array([
      0x93, 0x48, 0x69, 0x94, 0x20, 0x80, 0x35, 0x0d, 0x0a, 0x96, 0x20, 0x65, 0x6e, 0x64,
    ])
    const r = await extractText({ bytes, filename: 'note.txt' })
    expect(r).toMatchObject({ kind: 'text', text: '“Hi” €5\n– end', encoding: 'windows-1252' })
  })

  test('a long plain text is cut at blank lines into bounded sections', async () => {
    const body = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}. ${para(1000)}`).join('\n\n')
    const r = await extractText({ bytes: enc.encode(body), filename: 'long.txt' })
    expect(r.sections.length).toBeGreaterThan(1)
    for (const s of r.sections) {
      expect(s.text.length).toBeLessThanOrEqual(SECTION_MAX_CHARS)
      expect(s.text).toMatch(/^Paragraph \d+\./)
    }
  })

  test('a kind the upload detected is read as that kind, without detecting the file again', async () => {
    const bytes = enc.encode(JSON.stringify({ name: 'Engram' }))
    // By its name alone the file is plain text; the kind given wins.
    expect((await extractText({ bytes, filename: 'meta.txt' })).kind).toBe('text')
    const r = await extractText({ bytes, filename: 'meta.txt', kind: 'json' })
    expect(r).toMatchObject({ kind: 'json', text: 'name: Engram' })
  })

  test('an empty or blank file fails with empty_document', async () => {
    for (const bytes of [new Uint8Array(), enc.encode(' \n\t\n')]) {
      const e = await extractText({ bytes, filename: 'blank.txt' }).catch((x) => x)
      expect(e.code).toBe('empty_document')
    }
  })

  test('JSON reads as indented key: value lines, one section per top-level key', async () => {
    const json = JSON.stringify({ name: 'Engram', tags: ['a', 'b'], owner: { team: 'core', size: 3 } })
    const r = await extractText({ bytes: enc.encode(json), filename: 'meta.json' })
    expect(r.kind).toBe('json')
    expect(r.text).toBe('name: Engram\n\ntags:\n  - a\n  - b\n\nowner:\n  team: core\n  size: 3')
  })

  test('a JSON array of records and JSON Lines read as items', async () => {
    const rows = [
      { id: 1, city: 'Zürich' },
      { id: 2, city: 'Genève' },
    ]
    const array = await extractText({ bytes: enc.encode(JSON.stringify(rows)), filename: 'rows.json' })
    expect(array.text).toBe('id: 1\ncity: Zürich\n\nid: 2\ncity: Genève')
    expect(array.sections[0]!.title).toBe('Items 1–2')
    const lines = await extractText({
      bytes: enc.encode(rows.map((x) => JSON.stringify(x)).join('\n')),
      filename: 'r.jsonl',
    })
    expect(lines.text).toBe(array.text)
  })

  test('invalid JSON is kept as plain text with a warning', async () => {
    const r = await extractText({ bytes: enc.encode('{"a": 1,,}'), filename: 'broken.json' })
    expect(r.text).toBe('{"a": 1,,}')
    expect(r.warnings).toEqual(['The file is not valid JSON, so it was read as plain text.'])
  })
})

describe('extensionOf', () => {
  test("a file name's extension, lower case, from its last segment only", () => {
    const cases: [string, string][] = [
      ['a.TXT', '.txt'],
      ['dir/notes.md', '.md'],
      ['x/y.tar.gz', '.gz'],
      ['a\\b.PDF', '.pdf'],
      ['a.', '.'],
      // A leading dot names a hidden file, not an extension; a folder's dot is not the file's.
      ['.bashrc', ''],
      ['dir/.env', ''],
      ['d.x/file', ''],
      ['d.x\\file', ''],
      ['noext', ''],
      ['dir/', ''],
      ['', ''],
    ]
    for (const [name, ext] of cases) expect([name, extensionOf(name)]).toEqual([name, ext])
  })
})
