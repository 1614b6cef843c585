import { unzipSync } from 'fflate'
import { ExtractError, overBudgetMessage } from './extract.errors.ts'

/** The budget used when a caller names none: an Office file's XML may expand to this many MB. */
export const ZIP_DEFAULT_BUDGET_MB = 1024

// The parts a reader inflates and parses: XML and relationships. Pictures, fonts, videos and
// embedded files are never unpacked, so a large picture does not count against the budget.
const PARSED_PART = /\.(xml|rels|vml)$/i

/**
 * Lists the entries of a zip (Office files are zips) from its central directory, without
 * inflating anything, and refuses an archive whose XML parts would expand beyond `budgetMb`
 * (a zip bomb is refused, not unpacked). A part that lies about its size is caught later by the
 * memory watch of the extraction process.
 */
export function checkZip(bytes: Uint8Array, budgetMb: number = ZIP_DEFAULT_BUDGET_MB): string[] {
  const names: string[] = []
  let expanded = 0
  try {
    unzipSync(bytes, {
      filter(file) {
        names.push(file.name)
        if (PARSED_PART.test(file.name)) expanded += file.originalSize
        return false
      },
    })
  } catch (e) {
    throw new ExtractError('corrupt_file', 'The file is not a readable zip container (Office files are).', e)
  }
  if (expanded > budgetMb * 1024 * 1024) {
    throw new ExtractError(
      'over_memory_budget',
      overBudgetMessage(budgetMb, Math.ceil(expanded / 1024 / 1024)),
    )
  }
  return names
}
