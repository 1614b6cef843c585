import { Lexer } from 'marked'
import { charsetFromContentType, decodeText } from './extract.encoding.ts'
import { cleanText } from './extract.text-util.ts'
import type { Piece, ReadResult } from './extract.types.ts'

// The text of a Markdown file is its source: it is already readable, and headings stay visible.
// marked's lexer finds the headings (ATX and setext) so that a "#" inside a code block or a
// "---" under a front-matter block is not taken for one.

const FRONT_MATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n(---|\.\.\.)[ \t]*(\r?\n|$)/

/** Reads Markdown, one piece per heading; YAML front matter stays with the opening text. */
export function readMarkdown(bytes: Uint8Array, contentType?: string): ReadResult {
  const { text: raw, encoding } = decodeText(bytes, charsetFromContentType(contentType))
  const source = raw.replace(/\r\n?/g, '\n')
  const front = FRONT_MATTER.exec(source)?.[0] ?? ''
  const pieces: Piece[] = []
  let piece: Piece = { title: null, text: front }
  for (const token of new Lexer({ gfm: true }).lex(source.slice(front.length))) {
    if (token.type === 'heading') {
      pieces.push(piece)
      piece = { title: plain(token.text), text: '' }
    }
    piece.text += token.raw
  }
  pieces.push(piece)
  const kept = pieces.map((p) => ({ ...p, text: cleanText(p.text) })).filter((p) => p.text)
  return { pieces: kept, title: kept.find((p) => p.title)?.title ?? null, encoding }
}

/** A heading as plain words: emphasis, code marks and link targets removed. */
function plain(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`~]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}
