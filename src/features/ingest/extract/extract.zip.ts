import { unzipSync } from 'fflate'
import { ExtractError } from './extract.errors.ts'

/** An Office file may expand to at most this many bytes (a zip bomb is refused, not unpacked). */
export const ZIP_MAX_EXPANDED_BYTES = 1024 * 1024 * 1024

/**
 * Lists the entries of a zip (Office files are zips) from its central directory, without
 * inflating anything, and refuses archives that would expand beyond the limit.
 */
export function checkZip(bytes: Uint8Array): string[] {
  const names: string[] = []
  let expanded = 0
  try {
    unzipSync(bytes, {
      filter(file) {
        names.push(file.name)
        expanded += file.originalSize
        return false
      },
    })
  } catch (e) {
    throw new ExtractError('corrupt_file', 'The file is not a readable zip container (Office files are).', e)
  }
  if (expanded > ZIP_MAX_EXPANDED_BYTES) {
    throw new ExtractError(
      'too_large',
      `The document would expand to ${Math.round(expanded / 1e6)} MB, more than extraction allows.`,
    )
  }
  return names
}
