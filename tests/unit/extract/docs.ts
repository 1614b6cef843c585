// Shared loaders for the extraction tests: the real files in tests/fixtures/data/docs (see its
// SOURCES.tsv) and the fixtures beside this file. Each file is extracted at most once per test file.
import { readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import {
  type ExtractError,
  type ExtractResult,
  extractText,
  type SplitOptions,
} from '../../../src/features/ingest/extract/extract.ts'
import { FIXTURE_DOCS } from '../../helpers/fixture-data.ts'

/** Folder of the real-world documents kept with the tests. */
export const DOCS_DIR = FIXTURE_DOCS
/** Folder of the small fixtures kept with these tests (see fixtures/SOURCES.tsv). */
export const FIXTURES_DIR = resolve(import.meta.dir, 'fixtures')

/** The bytes of a real-world document, by its path under docs/ ("pdf/x.pdf"), or of a fixture. */
export function bytesOf(path: string): Uint8Array {
  const full = path.includes('/') ? join(DOCS_DIR, path) : join(FIXTURES_DIR, path)
  return new Uint8Array(readFileSync(full))
}

const cache = new Map<string, Promise<ExtractResult>>()

/** Extracts a document once and shares the result across the tests of a file. */
export function extracted(path: string, options?: SplitOptions): Promise<ExtractResult> {
  const key = `${path} ${JSON.stringify(options ?? {})}`
  let hit = cache.get(key)
  if (!hit) {
    hit = extractText({ bytes: bytesOf(path), filename: basename(path) }, options)
    cache.set(key, hit)
    hit.catch(() => {})
  }
  return hit
}

/** The ExtractError a document fails with (the test fails if it does not fail). */
export async function failure(path: string): Promise<ExtractError> {
  try {
    await extracted(path)
  } catch (e) {
    return e as ExtractError
  }
  throw new Error(`${path} was expected to fail but extracted`)
}

/** Section titles, in order. */
export function titles(result: ExtractResult): (string | null)[] {
  return result.sections.map((s) => s.title)
}
