import { unreadable } from './extract.errors.ts'
import { renderTable } from './extract.table.ts'
import type { Piece, ReadResult } from './extract.types.ts'
import { checkZip } from './extract.zip.ts'

// read-excel-file is small, maintained, streams the sheet XML through a SAX parser and returns
// typed cell values for every sheet. exceljs does far more (writing, styles) at ten times the
// install size; SheetJS is no longer published to npm.

/** Reads every sheet of an .xlsx workbook; each sheet's rows rendered like a CSV table. */
export async function readXlsx(bytes: Uint8Array, budgetMb?: number): Promise<ReadResult> {
  checkZip(bytes, budgetMb)
  let sheets: { sheet: string; data: unknown[][] }[]
  try {
    // Loaded by the first workbook a process reads, not at start-up.
    const { default: readXlsxFile } = await import('read-excel-file/node')
    sheets = await readXlsxFile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  } catch (e) {
    throw unreadable('The workbook', e)
  }
  const pieces: Piece[] = []
  for (const { sheet, data } of sheets) {
    const grid = data.map((row) => row.map(cellText))
    const table = renderTable(grid, sheet)
    pieces.push(...table.pieces)
  }
  return { pieces, pages: sheets.length, title: null }
}

/** A cell as a person reads it: dates as ISO dates, numbers without float noise. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (value instanceof Date) {
    const iso = value.toISOString()
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ')
  }
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(+value.toPrecision(15))
  return String(value)
}
