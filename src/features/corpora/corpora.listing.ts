import { iso } from '../../platform/clock/clock'
import {
  compareTimeId,
  keysetPage,
  type ListResult,
  type PageRequest,
  timeIdCursor,
} from '../../platform/paging/paging'
import type { CorporaRepo, CorpusRow, DocumentRow } from './corpora.repo'
import { corpusResp, documentResp } from './corpora.schemas'

/** Bases of a workspace, paged (page null: all); `only` narrows them (a bound key's bases). */
export async function listBases(
  repo: CorporaRepo,
  workspaceId: string,
  page: PageRequest | null,
  only: readonly string[] | null,
) {
  if (only) {
    const some = await Promise.all(only.map((id) => repo.get(workspaceId, id)))
    return pageOfSome(
      some.filter((r) => r !== null),
      page,
    )
  }
  const total = await repo.countAll(workspaceId)
  if (!page) return { items: (await repo.listAll(workspaceId)).map(corpusResp), total, nextCursor: null }
  const rows = await repo.listPage(workspaceId, page.after, page.limit)
  return keysetPage(rows, page.limit, (r) => [r.created_at, r.id], corpusResp, total)
}

/** What each base of a workspace holds: its documents and the bytes they occupy in the object store. */
export async function usageOf(
  repo: CorporaRepo,
  workspaceId: string,
): Promise<{ id: string; name: string; documents: number; storageBytes: number }[]> {
  return (await repo.listAll(workspaceId)).map((r) => ({
    id: r.id,
    name: r.name,
    documents: r.n_documents,
    storageBytes: r.storage_bytes,
  }))
}

/** Documents of a base (parents only unless `sections`), paged (page null: all). */
export async function listDocuments(
  repo: CorporaRepo,
  corpusId: string,
  sections: boolean,
  page: { limit: number; after: readonly (string | number)[] | null } | null,
) {
  const total = await repo.countDocuments(corpusId, sections)
  const rows = await repo.documentsPage(corpusId, sections, page?.after ?? null, page?.limit ?? null)
  if (!page) return { items: rows.map(documentResp), total, nextCursor: null }
  return keysetPage(rows, page.limit, (r) => [r.created_at, r.id], documentResp, total)
}

/**
 * A page of some bases (those a key is bound to), in the order and keyset pages of the whole
 * listing: newest first, continuing strictly after [created_at, id]. A bound key names at most a
 * hundred bases, so they are read one by one and paged here rather than in SQL.
 */
export function pageOfSome(
  rows: CorpusRow[],
  page: PageRequest | null,
): ListResult<ReturnType<typeof corpusResp>> {
  const sorted = [...rows].sort((x, y) => compareTimeId(y.created_at, y.id, x.created_at, x.id))
  if (!page) return { items: sorted.map(corpusResp), total: sorted.length, nextCursor: null }
  const [at, id] = timeIdCursor(page.after) ?? [Number.MAX_SAFE_INTEGER, '']
  const after = sorted.filter((r) => r.created_at < at || (r.created_at === at && r.id < id))
  return keysetPage(
    after.slice(0, page.limit + 1),
    page.limit,
    (r) => [r.created_at, r.id],
    corpusResp,
    sorted.length,
  )
}

/** The CSV manifest of these documents: one line a file, cells quoted and defused against formulas. */
export function manifestCsv(rows: DocumentRow[]): string {
  const cell = (v: string | number | null) => {
    const s = v === null ? '' : String(v)
    // Quote every text cell, and defuse spreadsheet formulas (CSV injection).
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
    return typeof v === 'number' ? s : `"${safe.replace(/"/g, '""')}"`
  }
  const lines = ['filename,size,sha256,content_type,status,document_id,updated_at']
  for (const d of rows) {
    lines.push(
      [d.path, d.size, d.sha256, d.content_type, d.status, d.id, iso(new Date(d.updated_at))]
        .map(cell)
        .join(','),
    )
  }
  return `${lines.join('\r\n')}\r\n`
}
