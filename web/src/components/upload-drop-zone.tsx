/**
 * Where files come in: a drop zone for files and folders, and two buttons for the keyboard and for
 * touch screens ("Choose files", "Choose a folder") that open the system's pickers.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { fromDrop, fromFileList, type PickedFile } from '../lib/dropped-files'

/** True when a drag carries files (not text or a link dragged from the page). */
function carriesFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files')
}

/** The drop zone; `onFiles` gets every file dropped or picked, with its relative path. */
export function UploadDropZone({ onFiles }: { onFiles: (files: PickedFile[]) => void }) {
  const [over, setOver] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const zone = useRef<HTMLDivElement>(null)
  const files = useRef<HTMLInputElement>(null)
  const folder = useRef<HTMLInputElement>(null)
  const latest = useRef(onFiles)
  latest.current = onFiles

  const take = (picked: PickedFile[]) => {
    if (picked.length === 0) setError('Nothing to upload: the folder is empty or holds only hidden files.')
    else {
      setError(null)
      latest.current(picked)
    }
  }

  // The zone's drag events are listened to directly: the zone is no control (its buttons are), so it
  // carries no handler attributes of its own; `take` reads only refs and state setters.
  useEffect(() => {
    const el = zone.current
    if (!el) return
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return
      e.preventDefault()
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy'
      setOver(true)
    }
    const leave = (e: DragEvent) => {
      if (!el.contains(e.relatedTarget as Node | null)) setOver(false)
    }
    const drop = (e: DragEvent) => {
      e.preventDefault()
      e.stopPropagation()
      setOver(false)
      if (!e.dataTransfer) return
      fromDrop(e.dataTransfer).then(take, (err: Error) =>
        setError(`The dropped files could not be read: ${err.message}`),
      )
    }
    // A file dropped beside the zone would make the browser open it and leave the console.
    const keep = (e: DragEvent) => {
      if (carriesFiles(e)) e.preventDefault()
    }
    el.addEventListener('dragenter', enter)
    el.addEventListener('dragover', enter)
    el.addEventListener('dragleave', leave)
    el.addEventListener('drop', drop)
    addEventListener('dragover', keep)
    addEventListener('drop', keep)
    // `webkitdirectory` is not in Preact's attribute types; set it on the element.
    folder.current?.setAttribute('webkitdirectory', '')
    return () => {
      el.removeEventListener('dragenter', enter)
      el.removeEventListener('dragover', enter)
      el.removeEventListener('dragleave', leave)
      el.removeEventListener('drop', drop)
      removeEventListener('dragover', keep)
      removeEventListener('drop', keep)
    }
  }, [])

  const onPicked = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement
    take(fromFileList(input.files))
    // Picking the same files again must fire `change` again.
    input.value = ''
  }

  return (
    <div ref={zone} class={over ? 'dropzone dropzone-over' : 'dropzone'}>
      <p class="dropzone-title">Drop files or folders here</p>
      <p class="hint">
        PDF, Word, PowerPoint, Excel, HTML, Markdown, CSV, JSON and plain text. Folders keep their paths.
      </p>
      <div class="row dropzone-actions">
        <button type="button" class="btn btn-primary" onClick={() => files.current?.click()}>
          Choose files
        </button>
        <button type="button" class="btn btn-plain" onClick={() => folder.current?.click()}>
          Choose a folder
        </button>
      </div>
      <input
        ref={files}
        type="file"
        multiple
        class="visually-hidden"
        tabIndex={-1}
        aria-label="Files to upload"
        onChange={onPicked}
      />
      <input
        ref={folder}
        type="file"
        multiple
        class="visually-hidden"
        tabIndex={-1}
        aria-label="Folder to upload"
        onChange={onPicked}
      />
      {error && (
        <p class="upload-error" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
