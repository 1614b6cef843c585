// The outline (bookmarks) of a PDF names its chapters. Its entries are resolved to pages so that
// page-led sections can carry the chapter title and start where a chapter starts.

/** Outline levels used for titles: deeper entries (sub-sub-sections) are too fine for sections. */
export const PDF_OUTLINE_DEPTH = 2

interface OutlineItem {
  title: string
  dest: string | unknown[] | null
  items?: OutlineItem[]
}

/** The slice of pdf.js's document proxy this module needs. */
export interface OutlineSource {
  getOutline(): Promise<OutlineItem[] | null>
  getDestination(id: string): Promise<unknown[] | null>
  getPageIndex(ref: never): Promise<number>
}

/**
 * Maps page numbers (1-based) to the title of the first outline entry that starts on that page
 * (a chapter before its first sub-section), down to PDF_OUTLINE_DEPTH levels. Entries that cannot be resolved are skipped: an outline is a
 * help for titles, never a reason to fail.
 */
export async function outlineStarts(doc: OutlineSource): Promise<Map<number, string>> {
  const starts = new Map<number, string>()
  let outline: OutlineItem[] | null = null
  try {
    outline = await doc.getOutline()
  } catch {
    return starts
  }
  const visit = async (items: OutlineItem[], depth: number) => {
    for (const item of items) {
      const page = await pageOf(doc, item.dest)
      const title = item.title?.replace(/\s+/g, ' ').trim()
      if (page !== null && title && !starts.has(page)) starts.set(page, title)
      if (depth < PDF_OUTLINE_DEPTH && item.items?.length) await visit(item.items, depth + 1)
    }
  }
  await visit(outline ?? [], 1)
  return starts
}

async function pageOf(doc: OutlineSource, dest: OutlineItem['dest']): Promise<number | null> {
  try {
    const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : dest
    const target = explicit?.[0]
    if (typeof target === 'number') return target + 1
    if (target && typeof target === 'object') return (await doc.getPageIndex(target as never)) + 1
  } catch {
    // A dangling destination names no page.
  }
  return null
}
