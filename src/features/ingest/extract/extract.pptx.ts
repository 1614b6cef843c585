import { strFromU8, unzipSync } from 'fflate'
import { Parser } from 'htmlparser2'
import { ExtractError } from './extract.errors.ts'
import type { Piece, ReadResult } from './extract.types.ts'
import { checkZip } from './extract.zip.ts'

// A .pptx is a zip of DrawingML XML. fflate unpacks only the slide and notes parts and
// htmlparser2 (XML mode) reads them: text runs <a:t> inside paragraphs <a:p>, tables <a:tbl>.
// This is a few dozen lines against the published schema; the one package that reads pptx
// directly (officeparser) pulls in OCR and canvas binaries we do not want in a server.

// Placeholders that repeat on every slide and say nothing about it.
const BOILERPLATE = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg'])
const TITLE = new Set(['title', 'ctrTitle'])

/** Reads the slides of a .pptx in presentation order, one piece per slide, speaker notes kept. */
export function readPptx(bytes: Uint8Array, budgetMb?: number): ReadResult {
  checkZip(bytes, budgetMb)
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes, {
      filter: (f) => /^ppt\/(presentation\.xml|_rels\/|slides\/|notesSlides\/[^/]+\.xml$)/.test(f.name),
    })
  } catch (e) {
    throw new ExtractError('corrupt_file', 'The presentation cannot be unpacked.', e)
  }
  const xml = (name: string) => (files[name] ? strFromU8(files[name]) : null)
  const slides = slideOrder(xml)
  if (slides.length === 0 && !files['ppt/presentation.xml']) {
    throw new ExtractError('corrupt_file', 'The file has no slides: it is not a PowerPoint presentation.')
  }
  const pieces: Piece[] = []
  slides.forEach((path, i) => {
    const slide = readSlide(xml(path) ?? '')
    const notesPath = relTargets(xml(relsPath(path)), 'notesSlide')[0]
    const notes = notesPath ? readSlide(xml(notesPath) ?? '').lines : []
    const title = slide.title ?? `Slide ${i + 1}`
    const body = [slide.title ? null : title, ...slide.lines]
    if (notes.length > 0) body.push(`Notes: ${notes.join('\n')}`)
    pieces.push({ title, text: body.filter((l) => l).join('\n'), page: i + 1 })
  })
  return {
    pieces,
    pages: slides.length,
    title: pieces.find((p) => !p.title?.startsWith('Slide '))?.title ?? null,
  }
}

/** Slide part paths in the order presentation.xml lists them (not file-name order). */
function slideOrder(xml: (name: string) => string | null): string[] {
  const targets = new Map<string, string>()
  for (const rel of relations(xml('ppt/_rels/presentation.xml.rels'))) targets.set(rel.id, rel.target)
  const ordered: string[] = []
  new Parser(
    {
      onopentag(name, attrs) {
        const target = name === 'p:sldid' ? targets.get(attrs['r:id'] ?? '') : undefined
        if (target) ordered.push(resolve('ppt/', target))
      },
    },
    { xmlMode: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  ).end(xml('ppt/presentation.xml') ?? '')
  return ordered.filter((p) => xml(p) !== null)
}

function relsPath(part: string): string {
  const slash = part.lastIndexOf('/')
  return `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`
}

function relations(rels: string | null): { id: string; type: string; target: string }[] {
  const out: { id: string; type: string; target: string }[] = []
  new Parser(
    {
      onopentag(name, a) {
        if (name === 'relationship' && a.id && a.target)
          out.push({ id: a.id, type: a.type ?? '', target: a.target })
      },
    },
    { xmlMode: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  ).end(rels ?? '')
  return out
}

function relTargets(rels: string | null, typeSuffix: string): string[] {
  return relations(rels)
    .filter((r) => r.type.endsWith(`/${typeSuffix}`))
    .map((r) => resolve('ppt/slides/', r.target))
}

/** Resolves a relationship target ("../notesSlides/n1.xml") against the folder of its part. */
function resolve(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1)
  const parts = base.split('/').filter((p) => p)
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop()
    else if (seg !== '.') parts.push(seg)
  }
  return parts.join('/')
}

/** The title and text lines of one slide (or notes page); table rows as "cell | cell". */
export function readSlide(xml: string): { title: string | null; lines: string[] } {
  const lines: string[] = []
  const titleParts: string[] = []
  let para = ''
  let inText = false
  let shape: { kind: 'title' | 'skip' | 'body' } | null = null
  let cells: string[] | null = null
  let cell: string[] | null = null
  new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'p:sp') shape = { kind: 'body' }
        else if (name === 'p:ph' && shape) {
          const type = attrs.type ?? ''
          shape.kind = TITLE.has(type) ? 'title' : BOILERPLATE.has(type) ? 'skip' : 'body'
        } else if (name === 'a:t') inText = true
        else if (name === 'a:br') para += '\n'
        else if (name === 'a:tab') para += '\t'
        else if (name === 'a:tr') cells = []
        else if (name === 'a:tc') cell = []
      },
      ontext(text) {
        if (inText) para += text
      },
      onclosetag(name) {
        if (name === 'a:t') inText = false
        else if (name === 'a:p') {
          const line = para.trim()
          para = ''
          if (!line) return
          const kind = (shape as { kind: string } | null)?.kind
          if (cell) cell.push(line)
          else if (kind === 'title') titleParts.push(line)
          else if (kind !== 'skip') lines.push(line)
        } else if (name === 'a:tc') {
          if (cell && cells && cell.length > 0) cells.push(cell.join(' '))
          cell = null
        } else if (name === 'a:tr') {
          if (cells && cells.length > 0) lines.push(cells.join(' | '))
          cells = null
        } else if (name === 'p:sp') shape = null
      },
    },
    { xmlMode: true, decodeEntities: true },
  ).end(xml)
  const title = titleParts.join(' ').replace(/\s+/g, ' ').trim()
  if (title) lines.unshift(title)
  return { title: title || null, lines }
}
