import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { type DocumentText, TEXT_WINDOW_MAX } from './lib/reading'

const Offset = Type.Integer({ minimum: 0, description: 'An offset in the text, in UTF-16 code units.' })

export const DocumentFileParams = Type.Object({
  corpus_id: Type.String({ maxLength: 64 }),
  document_id: Type.String({
    maxLength: 64,
    description: 'A document id, or the id of one of its sections.',
  }),
})

export const DocumentTextQuery = Type.Object({
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "Where the window starts, in UTF-16 code units of the text (JavaScript string indices). By default the text's start, or, for a section id, where that section starts.",
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: TEXT_WINDOW_MAX,
      default: TEXT_WINDOW_MAX,
      description: `Most code units to answer (at most ${TEXT_WINDOW_MAX}); \`next_offset\` says where the rest starts.`,
    }),
  ),
})

export const PageRangeResp = namedObject('PageRange', {
  number: Type.Integer({ minimum: 1, description: 'The page number (1 is the first page of the file).' }),
  start: Offset,
  end: Type.Integer({
    minimum: 0,
    description:
      '`text.slice(start, end)` is what the page holds; a page without text is empty (`start == end`).',
  }),
})

export const SectionRangeResp = namedObject('SectionRange', {
  id: Type.String({
    description:
      'The section row (a `DocumentResp` with `parent_id`); the document itself when it has one section.',
  }),
  title: Type.Union([Type.String(), Type.Null()], { description: 'The heading the section starts under.' }),
  start: Offset,
  end: Type.Integer({ minimum: 0 }),
  page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'The page (of a PDF) the section starts on; null without pages.',
  }),
})

export const DocumentTextViewResp = namedObject('DocumentTextView', {
  document_id: Type.String({ description: 'The document (file); a section id asked for answers its file.' }),
  filename: Type.String({ description: 'Relative path of the file in the base.' }),
  content_type: Type.Union([Type.String(), Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()], {
    description: 'The title found in the document, if any.',
  }),
  text_chars: Type.Integer({ minimum: 0, description: 'Length of the whole text, in UTF-16 code units.' }),
  offset: Offset,
  next_offset: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      'Where the rest of the text starts (ask again with `offset`); null when this window reaches its end.',
  }),
  text: Type.String({
    description:
      "The window of the extracted text: paragraphs parted by a blank line (a PDF's lines joined, its page numbers and running headers and footers left out).",
  }),
  pages: Type.Union([Type.Array(PageRangeResp), Type.Null()], {
    description:
      'Every page of a PDF as a range of the whole text (not only of this window), in order; null for documents without pages and for PDFs extracted before pages were kept.',
  }),
  sections: Type.Array(SectionRangeResp, {
    description:
      'The sections as ranges of the whole text, in order; sources of answers name them in `section_title`.',
  }),
})

/** The wire shape of a window of a document's text. */
export function documentTextViewResp(t: DocumentText) {
  return {
    document_id: t.document.id,
    filename: t.document.path,
    content_type: t.document.content_type,
    title: t.document.section_title,
    text_chars: t.chars,
    offset: t.offset,
    next_offset: t.nextOffset,
    text: t.text,
    pages: t.pages,
    sections: t.sections,
  }
}
