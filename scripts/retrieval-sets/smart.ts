// Reads the SMART-style files of the classic test collections (Cranfield, CISI, ...): records that
// start with `.I <id>` and hold fields `.T` (title), `.A` (authors), `.B` (source), `.W` (text),
// `.X` (cross references), each a line of its own followed by the field's lines.
import { readFileSync } from 'node:fs'

/** One record: its `.I` id and its fields' text by letter (lines joined with single spaces). */
export interface SmartRecord {
  id: string
  fields: Record<string, string>
}

/** The records of a SMART file, in file order. */
export function readSmart(path: string): SmartRecord[] {
  const records: SmartRecord[] = []
  let field: string | null = null
  for (const line of readFileSync(path, 'latin1').split(/\r?\n/)) {
    const start = /^\.I\s+(\S+)/.exec(line)
    if (start) {
      records.push({ id: start[1]!, fields: {} })
      field = null
      continue
    }
    const tag = /^\.([A-Z])\s*$/.exec(line)
    const record = records.at(-1)
    if (tag) field = tag[1]!
    else if (record && field) record.fields[field] = `${record.fields[field] ?? ''} ${line.trim()}`.trim()
  }
  return records
}

/** The whitespace-separated columns of each non-empty line of a judgements file. */
export function readColumns(path: string): string[][] {
  return readFileSync(path, 'latin1')
    .split(/\r?\n/)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c[0] !== '')
}
