// The drive's delta query, page by page, turned into SourceChanges for one folder of the library.
//
// The delta runs on the drive's root, not on the folder: OneDrive for Business and SharePoint only
// support delta on the root, so the folder is a filter over the drive's changes. Delta items carry
// no `parentReference.path` either (Graph leaves it out because a folder rename reports only the
// folder), so an item's path is found from its parent's id: folders seen earlier in the same
// listing (a full enumeration lists parents before children), else one GET of the parent item.
import { type SourceChange, SourceError, type SourceFile } from './connector'
import { GRAPH, type GraphApi } from './sharepoint.graph'

/** The fields of a driveItem this connector reads. */
export interface DriveItem {
  id: string
  name?: string
  root?: object
  folder?: object
  file?: { mimeType?: string }
  deleted?: object
  cTag?: string
  eTag?: string
  size?: number
  lastModifiedDateTime?: string
  parentReference?: { id?: string; path?: string }
}

export interface DeltaPage {
  value?: DriveItem[]
  '@odata.nextLink'?: string
  '@odata.deltaLink'?: string
}

/** Folders nest at most this deep in SharePoint's 400-character paths; a longer chain is a loop. */
const MAX_DEPTH = 200

/** Paths of the drive's items, relative to the drive's root, learned from listings and parent GETs. */
export class DrivePaths {
  private readonly folders = new Map<string, string>()

  constructor(
    private readonly api: GraphApi,
    private readonly drive: string,
  ) {}

  /** Records a folder (or the root) seen in a listing, so its children need no GET. */
  remember(item: DriveItem, path: string): void {
    this.folders.set(item.id, path)
  }

  /** The item's path from the drive's root (no leading slash), or null when it cannot be known. */
  async pathOf(item: DriveItem, depth = 0): Promise<string | null> {
    if (item.root) return ''
    if (!item.name || depth > MAX_DEPTH) return null
    const parent = await this.parentPath(item, depth)
    if (parent === null) return null
    return parent ? `${parent}/${item.name}` : item.name
  }

  private async parentPath(item: DriveItem, depth: number): Promise<string | null> {
    const ref = item.parentReference
    if (ref?.path) {
      const fromPath = afterRoot(ref.path)
      if (fromPath !== null) return fromPath
    }
    if (!ref?.id) return null
    const known = this.folders.get(ref.id)
    if (known !== undefined) return known
    const select = '$select=id,name,root,folder,parentReference'
    const gone = new SourceError('source_error', `${GRAPH} lost a parent folder while listing.`)
    const parent = await this.api.json<DriveItem>(
      `/drives/${encodeURIComponent(this.drive)}/items/${encodeURIComponent(ref.id)}?${select}`,
      gone,
    )
    const path = await this.pathOf(parent, depth + 1)
    if (path !== null) this.folders.set(parent.id, path)
    return path
  }
}

/** The part of `parentReference.path` after `root:`, decoded segment by segment, or null. */
function afterRoot(path: string): string | null {
  const at = path.indexOf('root:')
  if (at < 0) return null
  const segments = path
    .slice(at + 'root:'.length)
    .split('/')
    .filter(Boolean)
  return segments.map(decodeSegment).join('/')
}

/** Graph percent-encodes the segments of `parentReference.path`; a stray `%` is kept as it is. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** Where a drive path sits relative to the source folder (compared without case, as SharePoint does). */
export function insideFolder(folder: string, drivePath: string): string | null {
  if (!folder) return drivePath || null
  const prefix = `${folder.toLowerCase()}/`
  if (!drivePath.toLowerCase().startsWith(prefix)) return null
  return drivePath.slice(prefix.length) || null
}

/** A driveItem with a `file` facet as a SourceFile; the cTag changes only when the content does. */
export function sourceFile(item: DriveItem, path: string): SourceFile {
  const modified = item.lastModifiedDateTime ? Date.parse(item.lastModifiedDateTime) : Number.NaN
  return {
    id: item.id,
    path,
    version: item.cTag ?? item.eTag ?? '',
    size: typeof item.size === 'number' ? item.size : -1,
    modifiedAt: Number.isFinite(modified) ? modified : null,
    contentType: item.file?.mimeType ?? null,
  }
}

/**
 * What one delta item means for the folder. In a full listing only files inside it count. In a
 * delta, a deleted file, or a file now outside the folder (moved out, or one that never was inside,
 * which the sync ignores), is `removed`.
 */
export async function changeOf(
  item: DriveItem,
  folder: string,
  paths: DrivePaths,
  complete: boolean,
): Promise<SourceChange | null> {
  if (item.deleted) return complete ? null : { kind: 'removed', id: item.id }
  if (item.root || item.folder) {
    const path = await paths.pathOf(item)
    if (path !== null) paths.remember(item, path)
    return null
  }
  if (!item.file) return null
  const drivePath = await paths.pathOf(item)
  const relative = drivePath === null ? null : insideFolder(folder, drivePath)
  if (relative === null || relative.split('/').some((s) => s === '..' || s === '.')) {
    return complete ? null : { kind: 'removed', id: item.id }
  }
  return { kind: 'file', file: sourceFile(item, relative) }
}
