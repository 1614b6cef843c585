import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SECTION_MAX_CHARS } from '../../../src/features/ingest/extract/extract.ts'
import { extracted, failure, titles } from './docs.ts'

// pdf.js reads the 619-page manual in 2 to 5 s, as the machine is loaded; the first test to ask for it waits.
setDefaultTimeout(30_000)

const PDF = 'pdf/'
const MANUAL = `${PDF}Unstructured-IO_unstructured__DA-619p.pdf`

describe('PDF text layer', () => {
  test('the 619-page manual keeps every page and groups pages into bounded sections', async () => {
    const r = await extracted(MANUAL)
    expect(r.kind).toBe('pdf')
    expect(r.pages).toBe(619)
    expect(r.text.startsWith('Table of Contents')).toBe(true)
    // Text from the last page and from the middle, checked against pdftotext.
    expect(r.text).toContain('Enjoy the book, my dear!')
    expect(r.text).toContain('For years, Jarvia used a mix of')
    expect(r.sections.length).toBeGreaterThan(60)
    expect(r.sections.length).toBeLessThan(300)
    // Sections cut at headings: the next one starts on the page where the last one ended, or on
    // the next page with text (page 182 is blank).
    let last = 0
    for (const s of r.sections) {
      expect(s.text.length).toBeLessThanOrEqual(SECTION_MAX_CHARS)
      expect([last, last + 1, ...(last === 181 ? [183] : [])]).toContain(s.page!)
      last = s.pageEnd ?? s.page!
    }
    expect(last).toBe(619)
    // Every page is a range of the text, in order; page 182 is blank.
    expect(r.pageRanges).toHaveLength(619)
    expect(r.pageRanges!.map((p) => p.number)).toEqual(Array.from({ length: 619 }, (_, i) => i + 1))
    expect(r.pageRanges![181]!.start).toBe(r.pageRanges![181]!.end)
    expect(r.text.slice(r.pageRanges![618]!.start, r.pageRanges![618]!.end)).toContain(
      'Enjoy the book, my dear!',
    )
  })

  test('sections of the manual are titled by its outline and start where a chapter starts', async () => {
    const r = await extracted(MANUAL)
    expect(r.sections[0]!.title).toBe('Codex DAO')
    const awakening = r.sections.find((s) => s.title === 'AWAKENING EXPANSION')!
    expect(awakening.page).toBe(143)
    expect(titles(r)).toContain("WARDEN'S KEEP")
  })

  test('a page of the manual without text is reported, not silently dropped', async () => {
    const r = await extracted(MANUAL)
    expect(r.warnings).toEqual(['Page 182 has no readable text (blank, scanned or images only).'])
  })

  test('a two-column paper reads column by column', async () => {
    const r = await extracted(`${PDF}Unstructured-IO_unstructured__multi-column-2p.pdf`)
    expect(r.pages).toBe(2)
    expect(r.text).toContain('Dense Passage Retrieval for Open-Domain Question Answering')
    expect(r.text).toContain('Open-domain question answering relies on efficient passage retrieval')
    expect(r.sections).toHaveLength(1)
    // Titled by its first heading: the paper's title.
    expect(r.sections[0]).toMatchObject({
      title: 'Dense Passage Retrieval for Open-Domain Question Answering',
      page: 1,
      pageEnd: 2,
    })
    // The authors, set as runs after superscripts, read as one line.
    expect(r.text).toContain('Vladimir Karpukhin∗, Barlas O˘guz∗, Sewon Min†, Patrick Lewis, Ledell Wu')
  })

  test('Korean text and table cells are extracted', async () => {
    const r = await extracted(`${PDF}Unstructured-IO_unstructured__korean-text-with-tables.pdf`)
    expect(r.pages).toBe(1)
    expect(r.text).toContain('적립 제외 대상')
    expect(r.text).toContain('삼성카드')
    expect(r.text).toContain('이마트, 이마트 트레이더스, 롯데마트, 홈플러스')
    // Korean has no capitals: its heading is told by its font.
    expect(r.sections[0]).toMatchObject({ title: '적립 제외 대상', page: 1 })
  })

  test('a password-protected PDF fails with pdf_encrypted', async () => {
    const e = await failure(`${PDF}Unstructured-IO_unstructured__password.pdf`)
    expect(e.code).toBe('pdf_encrypted')
    expect(e.message).toBe('The PDF is password-protected. Remove the password and upload it again.')
  })

  test('an image-only PDF fails with pdf_no_text_layer', async () => {
    const e = await failure(`${PDF}deepset-ai_haystack__non_text_searchable.pdf`)
    expect(e.code).toBe('pdf_no_text_layer')
    expect(e.message).toContain('OCR')
  })

  test('a PDF whose fonts have no character map is refused like a scan', async () => {
    // pdftotext also returns glyph garbage for pages 2..23 of this file.
    const e = await failure(`${PDF}mozilla_pdf.js__TAMReview.pdf`)
    expect(e.code).toBe('pdf_no_text_layer')
    expect(e.message).toContain('of the 23 pages of this PDF have a readable text layer')
  })

  test('the PDF that needs repair in other readers extracts all 76 pages', async () => {
    const r = await extracted(`${PDF}Unstructured-IO_unstructured__failure-after-repair.pdf`)
    expect(r.pages).toBe(76)
    expect(r.text).toContain('Understanding Breast Cancer')
    expect(r.text).toContain('Cancer Council Australia')
    expect(r.warnings).toEqual([])
  })

  test('a research paper keeps its authors and page count; sections follow its bookmarks', async () => {
    const r = await extracted(`${PDF}deepset-ai_haystack__react_paper.pdf`)
    expect(r.pages).toBe(31)
    expect(r.text).toContain('LANGUAGE MODELS')
    expect(r.text).toContain('Shunyu Yao')
    expect(titles(r).slice(0, 3)).toEqual([
      '1 Introduction',
      '2 ReAct: Synergizing Reasoning + Acting',
      '3 Knowledge-Intensive Reasoning Tasks',
    ])
  })

  test('words hyphenated at a line end are joined', async () => {
    const r = await extracted(`${PDF}mozilla_pdf.js__tracemonkey.pdf`)
    expect(r.pages).toBe(14)
    expect(r.text).toContain('Trace-based Just-in-Time Type Specialization for Dynamic')
    expect(r.text).toContain('TraceMonkey')
    expect(r.text).not.toMatch(/[a-z]-\n[a-z]/)
  })

  test('the layout-parser paper extracts both pages and drops control characters', async () => {
    const r = await extracted(`${PDF}Unstructured-IO_unstructured__layout-parser-paper-fast.pdf`)
    expect(r.pages).toBe(2)
    expect(r.text).toContain('LayoutParser: A Unified Toolkit for Deep')
    expect(r.sections[0]!.title).toBe(
      'LayoutParser: A Unified Toolkit for Deep Learning Based Document Image Analysis',
    )
    expect(r.text).not.toContain('\u0000')
  })

  test('a blank page among text pages is a warning and the title comes from metadata', async () => {
    const r = await extracted(`${PDF}deepset-ai_haystack__sample_pdf_1.pdf`)
    expect(r.pages).toBe(4)
    expect(r.title).toBe('sample_pdf')
    expect(r.text).toContain('Adobe Systems made the PDF specification available free of')
    expect(r.warnings).toEqual(['Page 3 has no readable text (blank, scanned or images only).'])
  })
})
