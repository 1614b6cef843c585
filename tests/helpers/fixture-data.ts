import { resolve } from 'node:path'

// Test data kept in the repository (tests/fixtures/data, sources and licences in its README.md), so
// that `npm install && npm test` passes on a fresh clone; the data folder CI keeps beside the
// checkout is for benchmarks only (tests/unit/self-contained.test.ts holds the tests to this).

/** Root of the test data kept in the repository. */
export const FIXTURE_DATA = resolve(import.meta.dir, '../fixtures/data')
/** The real-world documents of the extraction and ingest tests (listed in docs/SOURCES.tsv). */
export const FIXTURE_DOCS = resolve(FIXTURE_DATA, 'docs')
/** The 24 SQuAD articles and the questions of three of them. */
export const FIXTURE_SQUAD = resolve(FIXTURE_DATA, 'squad-dev')
