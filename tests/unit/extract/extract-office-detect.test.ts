import { describe, expect, test } from 'bun:test'
import { zipSync } from 'fflate'
import { detectType, extractText } from '../../../src/features/ingest/extract/extract.ts'
import { bytesOf, extracted, failure, titles } from './docs.ts'

const enc = new TextEncoder()
const refusal = async (filename: string, bytes: Uint8Array) => {
  const d = await detectType(filename, bytes)
  if (d.supported) throw new Error(`${filename} was accepted as ${d.kind}`)
  return d
}

describe('PowerPoint and Excel', () => {
  test('a slide keeps its title, bullets and text boxes', async () => {
    const r = await extracted('fake-power-point.pptx')
    expect(r.kind).toBe('pptx')
    expect(r.pages).toBe(1)
    expect(r.sections).toEqual([
      {
        title: 'Adding a Bullet Slide',
        page: 1,
        text:
          'Adding a Bullet Slide\nFind the bullet slide layout\nUse _TextFrame.text for first bullet\n' +
          'Use _TextFrame.add_paragraph() for subsequent bullets\nHere is a lot of text!\nHere is some text in a text box!',
      },
    ])
  })

  test('a slide table becomes one line per row', async () => {
    const r = await extracted('fake-power-point-table.pptx')
    expect(r.text).toBe(
      'A Slide with a Table\nColumn 1 | Column 2 | Column 3\nRed | Green | Blue\nPurple | Orange | Yellow\nTangerine | Pink | Aqua',
    )
  })

  test('date, footer and slide-number placeholders are left out', async () => {
    const r = await extracted('fake-power-point-malformed.pptx')
    expect(r.text).toBe('Test Slide')
  })

  test('slides follow the presentation order and speaker notes are kept', async () => {
    const slide = (text: string) =>
      `<p:sld xmlns:a="a" xmlns:p="p"><p:cSld><p:spTree><p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
    const rel = (id: string, type: string, target: string) =>
      `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`
    const files = {
      '[Content_Types].xml': enc.encode('<Types/>'),
      'ppt/presentation.xml': enc.encode(
        '<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId id="256" r:id="rId3"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>',
      ),
      'ppt/_rels/presentation.xml.rels': enc.encode(
        `<Relationships>${rel('rId2', 'slide', 'slides/slide1.xml')}${rel('rId3', 'slide', 'slides/slide2.xml')}</Relationships>`,
      ),
      'ppt/slides/slide1.xml': enc.encode(slide('Second in order')),
      'ppt/slides/slide2.xml': enc.encode(slide('First in order')),
      'ppt/slides/_rels/slide2.xml.rels': enc.encode(
        `<Relationships>${rel('rId1', 'notesSlide', '../notesSlides/notesSlide1.xml')}</Relationships>`,
      ),
      'ppt/notesSlides/notesSlide1.xml': enc.encode(
        '<p:notes xmlns:a="a" xmlns:p="p"><p:sp><p:txBody><a:p><a:r><a:t>Say hello &amp; smile</a:t></a:r></a:p></p:txBody></p:sp></p:notes>',
      ),
    }
    const r = await extractText({ bytes: zipSync(files), filename: 'deck.pptx' })
    expect(titles(r)).toEqual(['First in order'])
    expect(r.text).toBe('First in order\nNotes: Say hello & smile\n\nSecond in order')
    expect(r.pages).toBe(2)
  })

  test('every sheet of a workbook is read, caption rows become titles', async () => {
    const r = await extracted('stanley-cups.xlsx')
    expect(r.kind).toBe('xlsx')
    expect(r.pages).toBe(2)
    expect(r.text).toBe(
      'Stanley Cups\nTeam: Blues; Location: STL; Stanley Cups: 1\nTeam: Flyers; Location: PHI; Stanley Cups: 2\n' +
        'Team: Maple Leafs; Location: TOR; Stanley Cups: 13\n\nStanley Cups Since 67\nTeam: Blues; Location: STL; ' +
        'Stanley Cups: 1\nTeam: Flyers; Location: PHI; Stanley Cups: 2\nTeam: Maple Leafs; Location: TOR; Stanley Cups: 0',
    )
  })

  test('a password-protected workbook fails with office_encrypted', async () => {
    const e = await failure('password_protected.xlsx')
    expect(e.code).toBe('office_encrypted')
    expect(e.message).toBe(
      'The Office document is password-protected. Remove the password and upload it again.',
    )
  })

  test('a workbook without cells fails with empty_document', async () => {
    expect((await failure('empty.xlsx')).code).toBe('empty_document')
  })
})

describe('type detection', () => {
  test('unsupported binary types are refused with the type named', async () => {
    expect((await refusal('photo.jpg', bytesOf('example.jpg'))).typeName).toBe('JPG image (image/jpeg)')
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
    ])
    expect((await refusal('a.png', png)).typeName).toBe('PNG image (image/png)')
    const exe = new Uint8Array(512)
    exe.set([0x4d, 0x5a])
    const d = await refusal('setup.exe', exe)
    expect(d.typeName).toBe('Windows executable (application/x-msdownload)')
    expect(d.message).toBe(
      'Unsupported file type: Windows executable (application/x-msdownload). Supported types: PDF, Word (.docx), ' +
        'PowerPoint (.pptx), Excel (.xlsx), HTML, Markdown, CSV/TSV, JSON and plain text.',
    )
    expect((await refusal('data.bin', new Uint8Array([1, 0, 0, 2, 200]))).typeName).toBe('binary file (.bin)')
  })

  test('a text file whose first bytes look like a magic number is still text', async () => {
    // "BM" opens a bitmap and bytes 4-7 "wide" a QuickTime atom: both sniffed as media before.
    for (const [name, text] of [
      ['abstract-1.txt', 'BMI-1 is a polycomb group protein that regulates stem cell renewal.'],
      ['abstract-2.txt', 'The widespread use of antibiotics has selected resistant strains.'],
      ['notes.md', 'BM25 ranks passages by term frequency and inverse document frequency.'],
    ]) {
      expect(await detectType(name!, enc.encode(text))).toMatchObject({
        supported: true,
        kind: name!.endsWith('.md') ? 'markdown' : 'text',
      })
    }
    // A real image with a text name is still refused: its header is not printable text.
    expect((await refusal('photo.txt', bytesOf('example.jpg'))).typeName).toBe('JPG image (image/jpeg)')
    const bmp = new Uint8Array(64)
    bmp.set([0x42, 0x4d, 0x36, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0])
    expect((await refusal('scan.txt', bmp)).supported).toBe(false)
  })

  test('a zip that is not an Office package, legacy Office and OpenDocument files are refused', async () => {
    expect((await refusal('simple.zip', bytesOf('simple.zip'))).typeName).toBe('ZIP archive')
    expect((await refusal('report.docx', bytesOf('simple.zip'))).typeName).toBe('ZIP archive (.docx)')
    const doc = await refusal('fake.doc', bytesOf('fake.doc'))
    expect(doc.typeName).toBe('Word 97-2003 document (.doc)')
    expect(doc.message).toContain('Save it as .docx and upload it again.')
    expect((await refusal('fake.odt', bytesOf('fake.odt'))).typeName).toBe('OpenDocument file (.odt)')
    expect(
      (await refusal('logo.svg', enc.encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).typeName,
    ).toBe('SVG image (.svg)')
  })

  test('extracting an unsupported file fails with unsupported_type naming it', async () => {
    const e = await failure('example.jpg')
    expect(e.code).toBe('unsupported_type')
    expect(e.message).toStartWith('Unsupported file type: JPG image (image/jpeg).')
  })

  test('content decides over the name: an Office package or PDF under any name is read as what it is', async () => {
    expect(await detectType('upload.bin', bytesOf('docx/mwilliamson_mammoth.js__tables.docx'))).toMatchObject(
      {
        supported: true,
        kind: 'docx',
      },
    )
    expect(await detectType('noext', bytesOf('pdf/deepset-ai_haystack__sample_pdf_1.pdf'))).toMatchObject({
      kind: 'pdf',
    })
    const tenK = bytesOf('html/Unstructured-IO_unstructured__example-10k-1p.html')
    expect(await detectType('filing.html', tenK)).toMatchObject({ kind: 'html' })
  })

  test('text files are taken by extension, declared type or content; unknown text is plain text', async () => {
    expect(await detectType('notes.md', enc.encode('# x'))).toMatchObject({ kind: 'markdown' })
    expect(await detectType('rows.tsv', enc.encode('a\tb'))).toMatchObject({ kind: 'csv' })
    expect(await detectType('data', enc.encode('{"a":1}'), 'application/json; charset=utf-8')).toMatchObject({
      kind: 'json',
    })
    expect(await detectType('page', enc.encode('<!DOCTYPE html><p>x'))).toMatchObject({ kind: 'html' })
    expect(await detectType('script.py', enc.encode('print(1)\n'))).toMatchObject({ kind: 'text' })
    const utf16 = new Uint8Array([0x68, 0, 0x69, 0, 0x20, 0, 0x74, 0, 0x68, 0, 0x65, 0, 0x72, 0, 0x65, 0])
    expect(await detectType('hello.txt', utf16)).toMatchObject({ kind: 'text' })
  })
})
