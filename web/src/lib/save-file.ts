/**
 * Saves a blob the console downloaded (a document's original file) under a name. A download that
 * needs the bearer token cannot be a plain link, so the bytes come through the API's client and
 * are handed to the browser through a short-lived object URL.
 */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  // The server's name is the file's last path segment, already without control characters.
  a.download = filename
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
  // Revoked after the click has been handled: revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 30_000)
}
