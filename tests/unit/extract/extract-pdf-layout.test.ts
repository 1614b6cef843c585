import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { findFurniture, isPageNumber } from '../../../src/features/ingest/extract/extract.pdf-furniture.ts'
import { layoutPages } from '../../../src/features/ingest/extract/extract.pdf-layout.ts'
import {
  type PdfLine,
  pageLines,
  type TextItem,
} from '../../../src/features/ingest/extract/extract.pdf-lines.ts'
import { extracted } from './docs.ts'

// pdf.js reads the 619-page manual in 2 to 5 s, as the machine is loaded; the first test to ask for it waits.
setDefaultTimeout(30_000)

// Synthetic pages: a 12-point body font on 14-point lines, a column from x=56 to x=536, 6 units a
// character; a paragraph break is a 20-point step, a heading is set in another font.
const LEFT = 56
const RIGHT = 536
const CHAR = 6

interface Spec {
  text: string
  /** Baseline, from the top of the page down. */
  y: number
  x?: number
  font?: string
  height?: number
  /** Ends at the column's right edge (a wrapped line of a paragraph). */
  full?: boolean
}

function page(n: number, specs: Spec[]): PdfLine[] {
  return specs.map((s) => {
    const x = s.x ?? LEFT
    return {
      text: s.text,
      x,
      right: s.full ? RIGHT : x + s.text.length * CHAR,
      y: 800 - s.y,
      height: s.height ?? 12,
      font: s.font ?? 'body',
      cells: [s.text],
      page: n,
    }
  })
}

/** A paragraph of body lines from `y`, every line but the last full. */
function para(y: number, lines: string[]): Spec[] {
  return lines.map((text, i) => ({ text, y: y + 14 * i, full: i < lines.length - 1 }))
}

function laidText(pages: PdfLine[][]): string[] {
  const furniture = findFurniture(pages)
  const laid = layoutPages(pages.map((p) => p.filter((l) => !furniture.has(l))))
  return laid.pages.map((p) => p.parts.map((x) => x.text).join('\n\n'))
}

describe('PDF page furniture', () => {
  test('bare page numbers in their forms are told apart from text', () => {
    for (const s of ['12', '- 12 -', 'Page 12', '12 of 40', '12/40', 'xiv', 'Page 2 of Sample PDF']) {
      expect(isPageNumber(s)).toBe(true)
    }
    for (const s of ['12 apples', 'Chapter 12', 'Mix', '2024 was a good year.'])
      expect(isPageNumber(s)).toBe(false)
  })

  test('page numbers and a running header and footer repeated page after page are left out', () => {
    const ends = ['one.', 'two.', 'three.', 'four.']
    const pages = [1, 2, 3, 4].map((n) =>
      page(n, [
        { text: 'Annual Report 2024', y: 20 },
        ...para(60, [`Body text of page ${n} goes on for a while and fills the`, `line ${ends[n - 1]}`]),
        { text: n % 2 === 0 ? `${n} Example Corp` : `Results ${n}`, y: 780 },
      ]),
    )
    const text = laidText(pages)
    expect(text).toEqual(
      [1, 2, 3, 4].map((n) => `Body text of page ${n} goes on for a while and fills the line ${ends[n - 1]}`),
    )
  })

  test('a part title that opens distant pages at the same place stays; so does a chapter number that does not follow the pages', () => {
    const opening = (n: number, title: string) =>
      page(n, [
        { text: title, y: 20, font: 'bold' },
        ...para(40, ['Some text of the part that starts here goes', 'on.']),
      ])
    const filler = (n: number) => page(n, para(20, [`Plain page ${n} of text that goes on and on.`]))
    const pages = [
      opening(1, 'MAIN GAME'),
      filler(2),
      filler(3),
      filler(4),
      opening(5, 'MAIN GAME'),
      filler(6),
      filler(7),
      filler(8),
      opening(9, 'MAIN GAME'),
    ]
    const text = laidText(pages)
    expect(text[0]).toStartWith('MAIN GAME')
    expect(text[8]).toStartWith('MAIN GAME')
    const chapters = [1, 2, 3].map((c) => opening(c * 5, `Chapter ${c}`))
    expect(findFurniture(chapters).size).toBe(0)
  })
})

describe('PDF paragraphs', () => {
  test("a paragraph's lines are joined, a hyphenated word made whole, paragraphs parted by a blank line", () => {
    const text = laidText([
      page(1, [
        ...para(20, [
          'The first paragraph starts on this line and its words go on to a hyphen-',
          'ated word and the end.',
        ]),
        ...para(68, ['A second paragraph after a wider gap.']),
      ]),
    ])
    expect(text[0]).toBe(
      'The first paragraph starts on this line and its words go on to a hyphenated word and the end.\n\nA second paragraph after a wider gap.',
    )
  })

  test('list items, a table of contents and short lines keep their line breaks', () => {
    const text = laidText([
      page(1, [
        { text: 'Items to bring:', y: 20 },
        { text: '• a lamp', y: 34 },
        { text: '• a rope', y: 48 },
        { text: 'Dragon ........ 10', y: 80, full: true },
        { text: 'Golem ......... 11', y: 94, full: true },
      ]),
    ])
    expect(text[0]).toBe('Items to bring:\n• a lamp\n• a rope\n\nDragon ........ 10\nGolem ......... 11')
  })

  test('a sentence that runs over a page break is joined to its page, and the page knows it', () => {
    const pages = [
      page(1, para(20, ['The story begins on the first page and it does not stop at the', 'end of the'])),
      page(2, para(20, ['second page, where it ends.'])),
    ]
    const laid = layoutPages(pages)
    expect(laid.pages[1]!.glue).toBe(' ')
    expect(laid.pages[0]!.parts[0]!.text).toEndWith('end of the')
    const split = layoutPages([
      page(1, para(20, ['A sentence that ends here.'])),
      page(2, para(20, ['Another starts on the next page.'])),
    ])
    expect(split.pages[1]!.glue).toBeNull()
  })

  test('a short line in another font, followed by text, is a heading; labels of a figure are not', () => {
    const pages = [
      page(1, [
        ...para(20, ['Some opening text of the page that runs to the right edge of the', 'column.']),
        { text: 'Dragon', y: 70, font: 'bold' },
        ...para(90, ['Dragons are large and their fire is hot, so keep away from them', 'always.']),
        { text: 'Blood vessel', y: 150, x: 300 },
        { text: 'Lymph node', y: 190, x: 120 },
        { text: 'Boundary', y: 230, x: 200 },
      ]),
    ]
    const laid = layoutPages(pages)
    expect(laid.pages[0]!.parts.map((p) => p.heading)).toEqual([null, 'Dragon'])
    expect(laid.pages[0]!.parts[1]!.text).toStartWith('Dragon\n\nDragons are large')
  })

  test('a heading in the body font is told by its Title Case and the text after it', () => {
    const laid = layoutPages([
      page(1, [
        ...para(20, ['The text before the heading ends with a full stop like this one', 'does.']),
        { text: 'Mabari War Hound', y: 70 },
        ...para(90, ['Dogs are an essential part of the culture of the land and of its', 'wars.']),
        { text: 'a lowercase line that is not one', y: 140 },
        ...para(160, ['More text that follows it and goes on until the right edge of', 'it.']),
      ]),
    ])
    expect(laid.pages[0]!.parts.map((p) => p.heading)).toEqual([null, 'Mabari War Hound'])
  })
})

describe('PDF lines', () => {
  const run = (str: string, x: number, y: number, eol: boolean, size = 12, font = 'body'): TextItem => ({
    str,
    transform: [size, 0, 0, size, x, y],
    width: str.length * CHAR,
    height: size,
    hasEOL: eol,
    fontName: font,
  })

  test("a heading's right-hand tag, given after the line its title wrapped onto, is put back beside it", () => {
    const lines = pageLines(
      [
        run('A Study of the Fifth Blight, Vol.', LEFT, 700, true, 14, 'bold'),
        run('One', LEFT + 36, 684, true, 14, 'bold'),
        run('Same as in DAII', 440, 700, true, 14, 'bold'),
        run('While some of my contemporaries dispute whether the Fifth Blight was a true', LEFT, 660, true),
        run('Blight, historians agree.', LEFT, 646, true),
      ],
      1,
    )
    expect(lines.map((l) => l.cells)).toEqual([
      ['A Study of the Fifth Blight, Vol.', 'Same as in DAII'],
      ['One'],
      ['While some of my contemporaries dispute whether the Fifth Blight was a true'],
      ['Blight, historians agree.'],
    ])
    const laid = layoutPages([lines])
    expect(laid.pages[0]!.parts).toEqual([
      {
        heading: 'A Study of the Fifth Blight, Vol. One',
        text: 'A Study of the Fifth Blight, Vol. One\nSame as in DAII\n\nWhile some of my contemporaries dispute whether the Fifth Blight was a true Blight, historians agree.',
      },
    ])
  })

  test('runs after a superscript stay on their line, and a run placed elsewhere without a line end starts a line', () => {
    const lines = pageLines(
      [
        run('Vladimir Karpukhin', 100, 700, false),
        run('∗', 208, 704, true, 8),
        run(', Barlas Oguz', 212, 700, true),
        run('For information, call', LEFT, 80, false),
        run('Understanding', LEFT, 480, false, 32),
      ],
      1,
    )
    expect(lines.map((l) => l.text)).toEqual([
      'Vladimir Karpukhin∗, Barlas Oguz',
      'For information, call',
      'Understanding',
    ])
  })
})

describe('PDF text of the fixtures', () => {
  const MANUAL = 'pdf/Unstructured-IO_unstructured__DA-619p.pdf'
  const BOOKLET = 'pdf/Unstructured-IO_unstructured__failure-after-repair.pdf'

  test("the manual's sections are named by their headings, not all by the outline's chapter", async () => {
    const r = await extracted(MANUAL)
    const titles = r.sections.map((s) => s.title)
    expect(new Set(titles).size).toBeGreaterThan(100)
    expect(titles.filter((t) => t === 'MAIN GAME').length).toBeLessThanOrEqual(3)
    expect(titles).toContain('Dragon')
  })

  test("the manual's page numbers are not in its text and its paragraphs are whole", async () => {
    const r = await extracted(MANUAL)
    expect(r.text).not.toMatch(/\n\d{1,3}\n/)
    expect(r.text).not.toMatch(/^\d{1,3}$/m)
    // Page 10: a paragraph of six printed lines is one line of text.
    const page10 = r.text.slice(r.pageRanges![9]!.start, r.pageRanges![9]!.end)
    expect(page10).toContain(
      'Of all the threats from beyond the Veil, few are more insidious and deceptively deadly than the desire demon. In folklore,',
    )
    expect(page10).not.toContain('\n12')
    // Page 12 starts with its heading and the heading stands apart from its text.
    const page12 = r.text.slice(r.pageRanges![11]!.start, r.pageRanges![11]!.end)
    expect(page12).toStartWith('Halla\n\nNo creature is more revered by the Dalish than the halla.')
  })

  test("the booklet's running footers and page numbers are left out", async () => {
    const r = await extracted(BOOKLET)
    expect(r.text).not.toMatch(/\d+ Cancer Council$/m)
    expect(r.text).not.toContain('What is cancer? 5')
    expect(r.text).not.toContain('The breasts 7')
    expect(r.text).toContain('Cancer is a disease of the cells, which are the body’s basic building blocks.')
  })
})
