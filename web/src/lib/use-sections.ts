/**
 * The sections of a base's documents, shown on demand. The API lists sections for the whole base
 * (`sections=true`), not per document: they are read once, when the first document is opened, and
 * kept until the list of documents is read again (then read again if some are open).
 */
import { useEffect, useState } from 'preact/hooks'
import { listDocumentsWithSections } from '../api/bases'
import type { Doc } from '../api/types'

/** Section rows of a base by parent id, or the error of reading them. */
export interface Sections {
  byParent: Map<string, Doc[]> | null
  loading: boolean
  error: Error | null
}

/** Which documents are open, their sections, and how to open, close or read them again. */
export interface DocumentSections {
  open: Set<string>
  sections: Sections
  toggle: (doc: Doc) => void
  reload: () => void
}

/** The sections of base `baseId`'s documents; `items` is the list they belong to. */
export function useSections(baseId: string, items: Doc[] | undefined): DocumentSections {
  const [open, setOpen] = useState<Set<string>>(new Set())
  const [sections, setSections] = useState<Sections>({ byParent: null, loading: false, error: null })

  const reload = async () => {
    setSections({ byParent: null, loading: true, error: null })
    try {
      const rows = await listDocumentsWithSections(baseId)
      const byParent = new Map<string, Doc[]>()
      for (const r of rows) {
        if (!r.parent_id) continue
        const list = byParent.get(r.parent_id) ?? []
        list.push(r)
        byParent.set(r.parent_id, list)
      }
      setSections({ byParent, loading: false, error: null })
    } catch (e) {
      setSections({ byParent: null, loading: false, error: e as Error })
    }
  }
  // The list was read again: sections read before may be stale (read them again if some are shown).
  useEffect(() => {
    if (open.size > 0) reload()
    else setSections({ byParent: null, loading: false, error: null })
  }, [items])

  const toggle = (doc: Doc) => {
    const next = new Set(open)
    if (next.has(doc.id)) next.delete(doc.id)
    else {
      next.add(doc.id)
      if (!sections.byParent && !sections.loading) reload()
    }
    setOpen(next)
  }

  return { open, sections, toggle, reload }
}
