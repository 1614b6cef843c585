import type { AskResult as Asked, Source as Passage } from './compose/index'
import type { CitationsRepo } from './engine.citations.repo'

// Where the passages an answer cites lie in their documents: the page, the section and the offsets
// in the document's text, so that a viewer can open the document at the passage and mark it. The
// engine knows a passage's place in its section; corpora, whose documents hold the sections'
// offsets and the pages, places it in the document.

/** A source's place in its document; each part null when it is not known. */
export interface SourcePlace {
  /** The page (of a PDF) the passage starts on. */
  page: number | null
  /** The title of the section the passage is in (none for a document of one section). */
  sectionTitle: string | null
  /** Offsets of the passage in the document's text (UTF-16 code units). */
  start: number | null
  end: number | null
}

/** A source of an answer: a passage, with its place in its document when the engine cited it. */
export type Source = Passage & Partial<SourcePlace>

/** The engine's answer to a question, its sources placed in their documents. */
export type AskResult = Omit<Asked, 'sources'> & { sources: Source[] }

/** A passage's span in its section's text, as the locator is asked about it. */
export interface SectionSpan {
  sectionId: string
  start: number | null
  end: number | null
}

/** Places passages of a base in their documents (corpora's `placePassages`), in order. */
export type SourceLocator = (baseId: string, spans: SectionSpan[]) => Promise<SourcePlace[]>

/** The sources of an answer with their places; without a locator, as they are. */
export async function placeSources(
  repo: Pick<CitationsRepo, 'startsOf'>,
  locate: SourceLocator | null,
  baseId: string,
  result: Asked,
): Promise<AskResult> {
  if (!locate || result.sources.length === 0) return result
  // A source's id is `<sectionId>:<ordinal>`; its snippet is the passage's whole text.
  const passageStart = repo.startsOf(baseId)
  const spans = result.sources.map((s): SectionSpan => {
    const cut = s.id.lastIndexOf(':')
    const sectionId = s.id.slice(0, cut)
    const start = passageStart(sectionId, Number(s.id.slice(cut + 1)))
    return { sectionId, start, end: start === null ? null : start + s.snippet.length }
  })
  const places = await locate(baseId, spans)
  return { ...result, sources: result.sources.map((s, i) => ({ ...s, ...places[i] })) }
}
