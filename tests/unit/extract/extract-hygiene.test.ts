// Extraction errors are worded for a person (issue 18, item 5): no parser internals, no stack-ish
// text, no impossible counts. The library's words stay in the error's cause, for the logs.
import { afterAll, describe, expect, test } from 'bun:test'
import { ExtractSandbox } from '../../../src/features/ingest/extract/extract.sandbox.ts'
import { ExtractError, extractText } from '../../../src/features/ingest/extract/extract.ts'
import { loopingPdf, textPdf, zip } from '../../helpers/bombs.ts'

const enc = new TextEncoder()
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships'
const rels = (type: string, target: string) =>
  `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${R}/${type}" Target="${target}"/></Relationships>`

/** A Word document whose body XML is not well-formed: mammoth's XML parser (xmldom) rejects it. */
const brokenDocx = zip([
  { name: '[Content_Types].xml', text: '<Types/>' },
  { name: '_rels/.rels', text: rels('officeDocument', 'word/document.xml') },
  { name: 'word/document.xml', text: `<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>cut</w:body>` },
])

/** A workbook whose cells are out of order, which the spreadsheet reader refuses in its own words. */
const brokenXlsx = zip([
  { name: '[Content_Types].xml', text: '<Types/>' },
  { name: '_rels/.rels', text: rels('officeDocument', 'xl/workbook.xml') },
  {
    name: 'xl/workbook.xml',
    text: `<workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="A" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  },
  { name: 'xl/_rels/workbook.xml.rels', text: rels('worksheet', 'worksheets/sheet1.xml') },
  {
    name: 'xl/worksheets/sheet1.xml',
    text: `<worksheet xmlns="${S}"><sheetData><row r="1"><c r="B1"><v>1</v></c><c r="A1"><v>2</v></c></row></sheetData></worksheet>`,
  },
])

const REWRITE =
  'cannot be read: it is damaged or not in the format its name says. Open it in the program that made it, save it again and upload the new copy.'

/** The ExtractError a document fails with (the test fails if it does not fail). */
async function failure(run: Promise<unknown>): Promise<ExtractError> {
  try {
    await run
  } catch (e) {
    expect(e).toBeInstanceOf(ExtractError)
    return e as ExtractError
  }
  throw new Error('expected the extraction to fail')
}

/** What a message written for a person never contains. */
function expectWordedForAPerson(message: string): void {
  expect(message).not.toMatch(
    /xmldom|\[object|undefined|\bnull\b|-\d|Error:|Exception|\bat \S+ \(|@#|line:|col:/,
  )
  expect(message).toMatch(/^[A-Z].*\.$/s)
}

const sandbox = new ExtractSandbox({ memoryMb: 256 })
afterAll(() => sandbox.close())

describe('extraction errors worded for a person', () => {
  test('a PDF whose page tree loops back on itself fails with a clear message, never "Only -1 of the 2 pages"', async () => {
    const e = await failure(extractText({ bytes: loopingPdf(), filename: 'loop.pdf' }))
    expect({ code: e.code, message: e.message }).toEqual({
      code: 'corrupt_file',
      message:
        'The PDF cannot be read: its list of pages is damaged (it loops back on itself or points to pages that are missing). Open it in a PDF viewer, save or print it to a new PDF and upload that.',
    })
    expect((e.cause as Error).message).toContain('circular reference')
    expectWordedForAPerson(e.message)
  })

  test('a PDF with good pages still reads them all (the page count is never off)', async () => {
    const r = await extractText({
      bytes: textPdf([
        'The first page has enough words to be read.',
        'The second page also has enough words.',
      ]),
      filename: 'two.pdf',
    })
    expect(r.pages).toBe(2)
    expect(r.warnings).toEqual([])
  })

  test('an XML parser error inside a Word document reaches the user as a sentence; the parser keeps its words in the cause', async () => {
    const e = await failure(extractText({ bytes: brokenDocx, filename: 'broken.docx' }))
    expect({ code: e.code, message: e.message }).toEqual({
      code: 'corrupt_file',
      message: `The Word document ${REWRITE}`,
    })
    expect(String((e.cause as Error).message)).toContain('[xmldom error]')
    expectWordedForAPerson(e.message)
  })

  test('the same failure through the extraction child process keeps the message and the cause', async () => {
    const e = await failure(sandbox.extract({ bytes: brokenDocx, filename: 'broken.docx' }))
    expect(e.message).toBe(`The Word document ${REWRITE}`)
    expect(String((e.cause as Error).message)).toContain('[xmldom error]')
  })

  test("a workbook the spreadsheet reader refuses is reported without the reader's words", async () => {
    const e = await failure(extractText({ bytes: brokenXlsx, filename: 'broken.xlsx' }))
    expect({ code: e.code, message: e.message }).toEqual({
      code: 'corrupt_file',
      message: `The workbook ${REWRITE}`,
    })
    expect(String((e.cause as Error).message)).toMatch(/Out-of-place/)
  })

  test('JSON nested 50,000 levels deep fails as too deeply nested, not with the engine stack message', async () => {
    const bytes = enc.encode(`${'['.repeat(50_000)}1${']'.repeat(50_000)}`)
    const e = await failure(extractText({ bytes, filename: 'deep.json' }))
    expect({ code: e.code, message: e.message }).toEqual({
      code: 'too_deeply_nested',
      message:
        'The file is nested too deeply to be read (elements or values inside each other thousands of levels deep).',
    })
  })

  test('every failure of a table of damaged files is worded for a person', async () => {
    const damaged: [string, Uint8Array][] = [
      ['loop.pdf', loopingPdf()],
      ['broken.docx', brokenDocx],
      ['broken.xlsx', brokenXlsx],
      ['truncated.pdf', enc.encode('%PDF-1.7\n1 0 obj << /Type /Catalog')],
      ['notazip.docx', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6])],
      ['deep.json', enc.encode(`${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`)],
    ]
    for (const [filename, bytes] of damaged) {
      const e = await failure(extractText({ bytes, filename }))
      expectWordedForAPerson(e.message)
    }
  })

  test('invalid JSON is read as text with a warning in plain words', async () => {
    const r = await extractText({ bytes: enc.encode('{"a": 1,,}'), filename: 'broken.json' })
    expect(r.warnings).toEqual(['The file is not valid JSON, so it was read as plain text.'])
  })
})
