// The fixture documents (tests/fixtures/data/docs: PDF, HTML, Markdown, DOCX, CSV) as a base holds
// them: each file extracted in process by the product's extractor, split into its sections, and
// onboarded by the engine with the titles onboarding gives them (a one-section document is titled by
// its extracted title or its path, a section by its heading or its path). Files the extractor refuses
// (a password, no text layer, an empty file) are left out, as the product leaves them out.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Engine } from '../../src/features/engine/engine.service'
import { extractText } from '../../src/features/ingest/extract/extract'
import { FIXTURE_DOCS } from '../../tests/helpers/fixture-data'

/** A fixture document onboarded: its path under docs/ and how many sections it took. */
export interface FixtureDocument {
  path: string
  sections: number
}

/** Every fixture document's path under docs/ (kind folder and file), sorted. */
export function fixturePaths(): string[] {
  return readdirSync(FIXTURE_DOCS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(FIXTURE_DOCS, d.name)).map((f) => `${d.name}/${f}`))
    .sort()
}

/** Extracts and onboards `paths` (all fixture documents by default) into `baseId`; returns what was onboarded. */
export async function onboardFixtures(
  engine: Engine,
  baseId: string,
  paths: string[] = fixturePaths(),
): Promise<FixtureDocument[]> {
  const done: FixtureDocument[] = []
  for (const path of paths) {
    const bytes = new Uint8Array(readFileSync(join(FIXTURE_DOCS, path)))
    let result: Awaited<ReturnType<typeof extractText>>
    try {
      result = await extractText({ bytes, filename: path }, { pdfThread: false })
    } catch {
      continue
    }
    const parts = result.sections.length > 0 ? result.sections : [{ title: null, text: result.text }]
    const one = parts.length === 1
    for (const [i, s] of parts.entries()) {
      await engine.onboardSection({
        workspaceId: 'ws_fixtures',
        baseId,
        documentId: fixtureDocumentId(path),
        sectionId: `${baseId}_${i}_${path}`,
        title: (one ? (result.title ?? null) : s.title) ?? path,
        filename: path,
        text: s.text,
      })
    }
    done.push({ path, sections: parts.length })
  }
  return done
}

/** The document id a fixture document gets in the base. */
export function fixtureDocumentId(path: string): string {
  return `doc_${path}`
}
