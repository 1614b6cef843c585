// Builders of hostile documents for the memory-bomb tests and bench: Office files whose XML
// expands a thousandfold, a PDF with a huge compressed content stream, deeply nested HTML and a
// PDF whose page tree loops. Everything is generated in memory in well under a second: a deflate
// stream of a repeated block is the block's compressed bytes repeated (each ends on a full flush),
// so a 200 MB part costs a few hundred kilobytes and no 200 MB buffer is ever built here.
import { constants, crc32, deflateRawSync } from 'node:zlib'

const enc = new TextEncoder()
const MB = 1024 * 1024

/** A raw deflate stream of `head`, then `unit` repeated until about `size` bytes, then `tail`. */
export interface RepeatedPart {
  deflated: Uint8Array
  size: number
  crc: number
}

/** Deflates head + unit × n + tail without materialising the middle. */
export function repeatDeflate(head: string, unit: string, size: number, tail: string): RepeatedPart {
  const flush = { finishFlush: constants.Z_FULL_FLUSH }
  const u = enc.encode(unit)
  const perBlock = Math.max(1, Math.floor(MB / u.length))
  const block = new Uint8Array(u.length * perBlock)
  for (let i = 0; i < perBlock; i++) block.set(u, i * u.length)
  const blocks = Math.max(1, Math.floor(size / block.length))
  const h = enc.encode(head)
  const t = enc.encode(tail)
  const hd = deflateRawSync(h, flush)
  const bd = deflateRawSync(block, flush)
  const td = deflateRawSync(t)
  const deflated = new Uint8Array(hd.length + bd.length * blocks + td.length)
  deflated.set(hd, 0)
  let crc = crc32(h)
  for (let i = 0; i < blocks; i++) {
    deflated.set(bd, hd.length + i * bd.length)
    crc = crc32(block, crc)
  }
  deflated.set(td, hd.length + bd.length * blocks)
  crc = crc32(t, crc)
  return { deflated, size: h.length + block.length * blocks + t.length, crc }
}

/** One zip entry: plain text, or an already deflated part. */
export type ZipEntry = { name: string; text: string } | { name: string; part: RepeatedPart }

/** A zip archive (deflate, no zip64: parts stay under 4 GB). */
export function zip(entries: ZipEntry[]): Uint8Array {
  const locals: Uint8Array[] = []
  const centrals: Uint8Array[] = []
  let offset = 0
  for (const e of entries) {
    const part = 'part' in e ? e.part : textPart(e.text)
    const name = enc.encode(e.name)
    const local = new Uint8Array(30 + name.length)
    const lv = new DataView(local.buffer)
    lv.setUint32(0, 0x04034b50, true)
    lv.setUint16(4, 20, true)
    lv.setUint16(8, 8, true)
    lv.setUint32(14, part.crc, true)
    lv.setUint32(18, part.deflated.length, true)
    lv.setUint32(22, part.size, true)
    lv.setUint16(26, name.length, true)
    local.set(name, 30)
    const central = new Uint8Array(46 + name.length)
    const cv = new DataView(central.buffer)
    cv.setUint32(0, 0x02014b50, true)
    cv.setUint16(4, 20, true)
    cv.setUint16(6, 20, true)
    cv.setUint16(10, 8, true)
    cv.setUint32(16, part.crc, true)
    cv.setUint32(20, part.deflated.length, true)
    cv.setUint32(24, part.size, true)
    cv.setUint16(28, name.length, true)
    cv.setUint32(42, offset, true)
    central.set(name, 46)
    locals.push(local, part.deflated)
    centrals.push(central)
    offset += local.length + part.deflated.length
  }
  const cdSize = centrals.reduce((n, c) => n + c.length, 0)
  const end = new Uint8Array(22)
  const ev = new DataView(end.buffer)
  ev.setUint32(0, 0x06054b50, true)
  ev.setUint16(8, entries.length, true)
  ev.setUint16(10, entries.length, true)
  ev.setUint32(12, cdSize, true)
  ev.setUint32(16, offset, true)
  return concat([...locals, ...centrals, end])
}

function textPart(text: string): RepeatedPart {
  const bytes = enc.encode(text)
  return { deflated: deflateRawSync(bytes), size: bytes.length, crc: crc32(bytes) }
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts))
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

function rels(type: string, target: string): string {
  return `${XML}<Relationships xmlns="${PKG_RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/${type}" Target="${target}"/></Relationships>`
}

function types(overrides: [string, string][]): string {
  const o = overrides.map(([p, t]) => `<Override PartName="${p}" ContentType="${t}"/>`).join('')
  return (
    `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    `<Default Extension="xml" ContentType="application/xml"/>${o}</Types>`
  )
}

/**
 * A workbook whose shared-strings part holds about `size` bytes of strings (a sheet's cells must
 * carry increasing addresses, so the repeated part is the string table every sheet refers to).
 */
export function xlsxBomb(size: number): Uint8Array {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
  const strings = repeatDeflate(`${XML}<sst xmlns="${ns}">`, '<si><t>boom boom</t></si>', size, '</sst>')
  const sheet = `${XML}<worksheet xmlns="${ns}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`
  const book = `${XML}<workbook xmlns="${ns}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Boom" sheetId="1" r:id="rId1"/></sheets></workbook>`
  const bookRels =
    `${XML}<Relationships xmlns="${PKG_RELS}">` +
    `<Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/>` +
    `<Relationship Id="rId2" Type="${DOC_RELS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`
  const main = 'application/vnd.openxmlformats-officedocument.spreadsheetml'
  return zip([
    {
      name: '[Content_Types].xml',
      text: types([
        ['/xl/workbook.xml', `${main}.sheet.main+xml`],
        ['/xl/worksheets/sheet1.xml', `${main}.worksheet+xml`],
        ['/xl/sharedStrings.xml', `${main}.sharedStrings+xml`],
      ]),
    },
    { name: '_rels/.rels', text: rels('officeDocument', 'xl/workbook.xml') },
    { name: 'xl/workbook.xml', text: book },
    { name: 'xl/_rels/workbook.xml.rels', text: bookRels },
    { name: 'xl/worksheets/sheet1.xml', text: sheet },
    { name: 'xl/sharedStrings.xml', part: strings },
  ])
}

/** A Word document whose body is about `size` bytes of paragraphs. */
export function docxBomb(size: number): Uint8Array {
  const ns = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'
  const body = repeatDeflate(
    `${XML}<w:document xmlns:w="${ns}"><w:body>`,
    '<w:p><w:r><w:t>boom boom boom</w:t></w:r></w:p>',
    size,
    '</w:body></w:document>',
  )
  return zip([
    {
      name: '[Content_Types].xml',
      text: types([
        [
          '/word/document.xml',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
        ],
      ]),
    },
    { name: '_rels/.rels', text: rels('officeDocument', 'word/document.xml') },
    { name: 'word/document.xml', part: body },
  ])
}

/** A presentation whose one slide is about `size` bytes of text runs. */
export function pptxBomb(size: number): Uint8Array {
  const p = 'http://schemas.openxmlformats.org/presentationml/2006/main'
  const a = 'http://schemas.openxmlformats.org/drawingml/2006/main'
  const slide = repeatDeflate(
    `${XML}<p:sld xmlns:p="${p}" xmlns:a="${a}"><p:cSld><p:spTree><p:sp><p:txBody>`,
    '<a:p><a:r><a:t>boom boom boom</a:t></a:r></a:p>',
    size,
    '</p:txBody></p:sp></p:spTree></p:cSld></p:sld>',
  )
  return zip([
    {
      name: '[Content_Types].xml',
      text: types([
        [
          '/ppt/presentation.xml',
          'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
        ],
        ['/ppt/slides/slide1.xml', 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml'],
      ]),
    },
    { name: '_rels/.rels', text: rels('officeDocument', 'ppt/presentation.xml') },
    {
      name: 'ppt/presentation.xml',
      text: `${XML}<p:presentation xmlns:p="${p}" xmlns:r="${DOC_RELS}"><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
    },
    { name: 'ppt/_rels/presentation.xml.rels', text: rels('slide', 'slides/slide1.xml') },
    { name: 'ppt/slides/slide1.xml', part: slide },
  ])
}

/** A PDF from its object bodies (numbered from 1, the first is the catalog), with a correct xref. */
export function pdf(objects: (string | Uint8Array)[]): Uint8Array {
  const parts: Uint8Array[] = [enc.encode('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')]
  let at = parts[0]!.length
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(at)
    const bytes = concat([
      enc.encode(`${i + 1} 0 obj\n`),
      typeof body === 'string' ? enc.encode(body) : body,
      enc.encode('\nendobj\n'),
    ])
    parts.push(bytes)
    at += bytes.length
  })
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`]
  for (const o of offsets) xref.push(`${String(o).padStart(10, '0')} 00000 n \n`)
  xref.push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`)
  parts.push(enc.encode(xref.join('')))
  return concat(parts)
}

/** A stream object holding `data` under the given filter. */
function stream(data: Uint8Array, filter?: string): Uint8Array {
  const dict = `<< /Length ${data.length}${filter ? ` /Filter /${filter}` : ''} >>\nstream\n`
  return concat([enc.encode(dict), data, enc.encode('\nendstream')])
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'

/** A one-page PDF whose content stream inflates to about `size` bytes of text operators. */
export function pdfBomb(size: number): Uint8Array {
  const part = repeatDeflate('BT /F1 12 Tf 72 720 Td ', '(boom boom boom) Tj 0 -1 Td ', size, 'ET')
  // zlib framing around the raw stream: header 78 9c; pdf.js does not check the Adler-32.
  const zlibbed = concat([new Uint8Array([0x78, 0x9c]), part.deflated, new Uint8Array(4)])
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream(zlibbed, 'FlateDecode'),
    FONT,
  ])
}

/** A PDF of `pages` pages, each with a line of text. */
export function textPdf(lines: string[]): Uint8Array {
  const n = lines.length
  const kids = lines.map((_, i) => `${3 + i * 2} 0 R`).join(' ')
  const objects: (string | Uint8Array)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${n} >>`,
  ]
  lines.forEach((line, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${3 + n * 2} 0 R >> >> >>`,
      stream(enc.encode(`BT /F1 12 Tf 72 720 Td (${line}) Tj ET`)),
    )
  })
  objects.push(FONT)
  return pdf(objects)
}

/**
 * A PDF whose page tree loops: the root /Pages lists a page and then itself, and claims two pages.
 */
export function loopingPdf(): Uint8Array {
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream(enc.encode('BT /F1 12 Tf 72 720 Td (The first page has enough words to be read as text.) Tj ET')),
    FONT,
  ])
}

/** An HTML page with `depth` nested <div> elements around one sentence. */
export function nestedHtml(depth: number): Uint8Array {
  return enc.encode(
    `<!doctype html><html><body>${'<div>'.repeat(depth)}Deep inside the page there is one sentence.${'</div>'.repeat(depth)}</body></html>`,
  )
}
