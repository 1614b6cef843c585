import Papa from 'papaparse'
import { charsetFromContentType, decodeText } from './extract.encoding.ts'
import { renderTable } from './extract.table.ts'
import { extensionOf } from './extract.text-util.ts'
import type { ReadResult } from './extract.types.ts'

// papaparse guesses the delimiter from the field counts of the first rows (comma, tab, pipe,
// semicolon) and handles quoted fields with embedded delimiters and newlines.

/** Reads a CSV or TSV file: encoding and delimiter detected, rows rendered "header: value; ...". */
export function readCsv(bytes: Uint8Array, filename: string, contentType?: string): ReadResult {
  const { text, encoding } = decodeText(bytes, charsetFromContentType(contentType))
  const tab = extensionOf(filename) === '.tsv' || /tab-separated/i.test(contentType ?? '')
  const parsed = Papa.parse<string[]>(text, { delimiter: tab ? '\t' : '', skipEmptyLines: 'greedy' })
  const table = renderTable(parsed.data, null)
  const warnings: string[] = []
  const broken = parsed.errors.filter((e) => e.code !== 'UndetectableDelimiter')
  if (broken.length > 0)
    warnings.push(`${broken.length} rows could not be parsed cleanly (${broken[0]?.message}).`)
  return { pieces: table.pieces, title: table.caption, encoding, warnings }
}
