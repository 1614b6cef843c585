/**
 * Files a person drops or picks, each with its relative path in the base. A dropped folder is
 * walked with the File and Directory Entries API (`webkitGetAsEntry`), the only way a page can see
 * inside a dropped folder; a folder picked with `<input webkitdirectory>` carries its paths in
 * `webkitRelativePath`.
 */

/** A file and the path it will have in the base (`/` separators, no leading slash). */
export interface PickedFile {
  file: File
  path: string
}

/** Hidden files (`.DS_Store`, `.git/...`) inside a folder are left out: they are never documents. */
function hidden(path: string): boolean {
  return path.split('/').some((part) => part.startsWith('.'))
}

/** The files of an `<input type="file">`, with the folder path when a folder was picked. */
export function fromFileList(list: FileList | null): PickedFile[] {
  const out: PickedFile[] = []
  for (const file of Array.from(list ?? [])) {
    const path = file.webkitRelativePath || file.name
    if (file.webkitRelativePath && hidden(path)) continue
    out.push({ file, path })
  }
  return out
}

/**
 * Takes what a drop holds. It must be called during the `drop` event: the browser empties the
 * `DataTransfer` once the handler returns, so the entries are taken now and walked afterwards.
 */
export function fromDrop(dt: DataTransfer): Promise<PickedFile[]> {
  const entries: FileSystemEntry[] = []
  const loose: File[] = []
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null
    if (entry) entries.push(entry)
    else {
      // A browser without entries (or a synthetic drop): the file itself, no folders.
      const file = item.getAsFile()
      if (file) loose.push(file)
    }
  }
  if (entries.length === 0 && loose.length === 0) loose.push(...Array.from(dt.files ?? []))
  return (async () => {
    const out: PickedFile[] = loose.map((file) => ({ file, path: file.name }))
    for (const entry of entries) await walk(entry, out, true)
    return out
  })()
}

async function walk(entry: FileSystemEntry, out: PickedFile[], top: boolean): Promise<void> {
  const path = entry.fullPath.replace(/^\/+/, '') || entry.name
  if (!top && hidden(entry.name)) return
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    )
    out.push({ file, path })
    return
  }
  if (!entry.isDirectory) return
  const reader = (entry as FileSystemDirectoryEntry).createReader()
  // `readEntries` answers a batch at a time (100 in Chromium) until it answers an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    )
    if (batch.length === 0) break
    for (const child of batch) await walk(child, out, false)
  }
}
