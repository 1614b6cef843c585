import { describe, expect, test } from 'bun:test'
import { SECTION_MAX_CHARS } from '../../../src/features/ingest/extract/extract.ts'
import { extracted, failure, titles } from './docs.ts'

const MAMMOTH = 'docx/mwilliamson_mammoth.js__'
const UNSTRUCTURED = 'docx/Unstructured-IO_unstructured__'

describe('Word documents', () => {
  test('table cells are kept, one row a line, cells separated by bars', async () => {
    const r = await extracted(`${MAMMOTH}tables.docx`)
    expect(r.kind).toBe('docx')
    expect(r.text).toBe('Above\n\nTop left | Top right\nBottom left | Bottom right\n\nBelow')
  })

  test('nested and merged tables keep every cell text, entities decoded', async () => {
    const r = await extracted(`${UNSTRUCTURED}docx-tables.docx`)
    expect(r.text).toContain('Header Col 1 | Header Col 2\nLorem ipsum | A link example')
    expect(r.text).toContain('a | >b< | c')
    expect(r.text).toContain('g&t | h')
    expect(r.text).toContain('Table with merged cells')
    for (const cell of ['d', 'e', 'f', 'i', 'j', 'k', 'l'])
      expect(r.text).toMatch(new RegExp(`\\b${cell}\\b`))
  })

  test('footnotes are kept at the end with their numbers, back-links dropped', async () => {
    const r = await extracted(`${MAMMOTH}footnotes.docx`)
    expect(r.text).toBe('Ouch[1].[2]\n\n[1] A tachyon walks into a bar.\n[2] Fin.')
  })

  test('review comments are left out of the text', async () => {
    const r = await extracted(`${MAMMOTH}comments.docx`)
    expect(r.text).toBe('Ouch.')
  })

  test('list items get bullets on their own lines', async () => {
    const r = await extracted(`${MAMMOTH}simple-list.docx`)
    expect(r.text).toBe('- Apple\n- Banana')
  })

  test('a Strict OOXML document and one with a BOM in its XML are read', async () => {
    expect((await extracted(`${MAMMOTH}strict-format.docx`)).text).toBe('Test')
    expect((await extracted(`${MAMMOTH}utf8-bom.docx`)).text).toBe('This XML has a byte order mark.')
  })

  test('an empty document fails with empty_document', async () => {
    const e = await failure(`${MAMMOTH}empty.docx`)
    expect(e.code).toBe('empty_document')
    expect(e.message).toBe('The document contains no text.')
  })

  test('page headers and footers are left out as repeated boilerplate', async () => {
    const r = await extracted(`${UNSTRUCTURED}docx-hdrftr.docx`)
    expect(r.text).toBe('Main document')
    expect(r.text).not.toContain('First header para')
  })

  test('the Title style becomes the title and a table follows the paragraphs', async () => {
    const r = await extracted('docx/deepset-ai_haystack__sample_docx.docx')
    expect(r.title).toBe('Sample Docx File')
    expect(r.text).toContain('The US has over 637,000 confirmed Covid-19 cases')
    expect(r.text).toContain('This | Is | Just a\n2020 | Random | Table')
    expect(r.text).toContain('Page 3 was empty this is page 4')
  })

  test('the 872-paragraph handbook splits into sections at its headings', async () => {
    const r = await extracted(`${UNSTRUCTURED}handbook-872p.docx`)
    expect(r.sections.length).toBeGreaterThan(50)
    const t = titles(r)
    expect(t).toContain('CHAPTER 1 – INTRODUCTION')
    expect(t).toContain('D. STANDING TRUSTEE PLEDGE OF EXCELLENCE')
    const intro = r.sections.find((s) => s.title === 'CHAPTER 1 – INTRODUCTION')!
    expect(
      intro.text.startsWith('CHAPTER 1 – INTRODUCTION\n\nA. PURPOSE\n\nThe United States Trustee appoints'),
    ).toBe(true)
    for (const s of r.sections) expect(s.text.length).toBeLessThanOrEqual(SECTION_MAX_CHARS)
    expect(r.text).toContain('U.S. Department of Justice')
    expect(r.text).not.toContain('data:image')
  })
})
