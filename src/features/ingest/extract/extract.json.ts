import { charsetFromContentType, decodeText } from './extract.encoding.ts'
import { SECTION_MAX_CHARS } from './extract.sections.ts'
import { cleanText, extensionOf } from './extract.text-util.ts'
import type { Piece, ReadResult } from './extract.types.ts'

/**
 * Reads JSON (and JSON Lines) as indented "key: value" text, which reads like a form rather than
 * like code. An array of records is grouped into pieces of items; an object gives one piece per
 * top-level key. A file that does not parse is kept as plain text, with a warning.
 */
export function readJson(bytes: Uint8Array, filename: string, contentType?: string): ReadResult {
  const { text, encoding } = decodeText(bytes, charsetFromContentType(contentType))
  const lines = ['.jsonl', '.ndjson'].includes(extensionOf(filename))
  let value: unknown
  try {
    value = lines
      ? text
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l))
      : JSON.parse(text)
  } catch {
    // The parser's own words ("JSON Parse error: Unexpected identifier") help nobody who uploaded it.
    const warning = 'The file is not valid JSON, so it was read as plain text.'
    return { pieces: [{ title: null, text: cleanText(text) }], encoding, warnings: [warning] }
  }
  return { pieces: toPieces(value), encoding }
}

function toPieces(value: unknown): Piece[] {
  if (Array.isArray(value)) {
    const pieces: Piece[] = []
    let group: string[] = []
    let first = 0
    let size = 0
    const close = (end: number) => {
      if (group.length === 0) return
      pieces.push({ title: `Items ${first + 1}–${end}`, text: group.join('\n\n') })
      group = []
      size = 0
      first = end
    }
    value.forEach((item, i) => {
      const text = render(item, 0).join('\n')
      if (size > 0 && size + text.length > SECTION_MAX_CHARS) close(i)
      group.push(text)
      size += text.length + 2
    })
    close(value.length)
    return pieces
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).map(([key, v]) => ({ title: key, text: render({ [key]: v }, 0).join('\n') }))
  }
  return [{ title: null, text: String(value) }]
}

/** Lines of YAML-like text for a JSON value at an indent depth. */
export function render(value: unknown, depth: number): string[] {
  const pad = '  '.repeat(depth)
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${pad}(none)`]
    return value.flatMap((item) => {
      if (!isComposite(item)) return [`${pad}- ${scalar(item)}`]
      const [head = '', ...rest] = render(item, depth + 1)
      return [`${pad}- ${head.trimStart()}`, ...rest]
    })
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.length === 0) return [`${pad}(empty)`]
    return entries.flatMap(([k, v]) =>
      isComposite(v) ? [`${pad}${k}:`, ...render(v, depth + 1)] : [`${pad}${k}: ${scalar(v)}`],
    )
  }
  return [`${pad}${scalar(value)}`]
}

function isComposite(v: unknown): boolean {
  return v !== null && typeof v === 'object'
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  return typeof v === 'string' ? v : JSON.stringify(v)
}
