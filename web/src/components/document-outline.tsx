/**
 * The viewer's outline: its sections by their headings, and a page picker for a PDF (a list of
 * every page would be 600 buttons for a manual). Picking one moves the viewer there.
 */
import type { PageRange, SectionRange } from '../api/types'

interface Props {
  pages: PageRange[] | null
  sections: SectionRange[]
  /** The page of the cited passage, named in the picker. */
  current: number | null
  onGo: (offset: number) => void
}

/** The outline beside the text. */
export function DocumentOutline(props: Props) {
  const pages = props.pages ?? []
  const titled = props.sections.filter((s) => s.title)
  if (pages.length === 0 && titled.length < 2) return null
  const goToPage = (e: Event) => {
    e.preventDefault()
    const n = Number(new FormData(e.currentTarget as HTMLFormElement).get('page'))
    const p = pages.find((x) => x.number === n)
    if (p) props.onGo(p.start)
  }
  return (
    <nav class="doc-outline" aria-label="Outline">
      {pages.length > 0 && (
        <form class="doc-page-picker" onSubmit={goToPage}>
          <label for="doc-page">Page</label>
          <input
            id="doc-page"
            name="page"
            type="number"
            min={1}
            max={pages.at(-1)?.number}
            value={props.current ?? 1}
            key={props.current ?? 1}
          />
          <span class="muted">of {pages.at(-1)?.number}</span>
          <button type="submit" class="btn btn-plain">
            Go
          </button>
        </form>
      )}
      {titled.length > 1 && (
        <>
          <h2 class="doc-outline-title">Sections</h2>
          <ol class="doc-sections">
            {titled.map((s) => (
              <li key={s.id}>
                <button type="button" class="link-button" onClick={() => props.onGo(s.start)}>
                  {s.title}
                </button>
                {s.page !== null && <span class="muted"> p. {s.page}</span>}
              </li>
            ))}
          </ol>
        </>
      )}
    </nav>
  )
}
