// A window of a text stored as UTF-8, read without holding the whole text: a document's text is
// read back a window at a time, and a 50 MB sidecar must not cost 50 MB (or twice that as a string).

/**
 * Code units [offset, offset + limit) of a UTF-8 stream's text, decoding as it reads and stopping
 * (cancelling the stream) once the window is full. A window never ends between the two halves of a
 * surrogate pair.
 */
export async function textWindow(
  stream: ReadableStream<Uint8Array>,
  offset: number,
  limit: number,
): Promise<string> {
  const decoder = new TextDecoder('utf-8')
  const reader = stream.getReader()
  const parts: string[] = []
  let seen = 0
  let taken = 0
  const take = (chunk: string) => {
    const from = Math.max(0, offset - seen)
    seen += chunk.length
    if (from >= chunk.length || taken >= limit) return
    const part = chunk.slice(from, from + (limit - taken))
    parts.push(part)
    taken += part.length
  }
  try {
    while (taken < limit) {
      const { done, value } = await reader.read()
      if (done) {
        take(decoder.decode())
        break
      }
      take(decoder.decode(value, { stream: true }))
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  let text = parts.join('')
  const last = text.charCodeAt(text.length - 1)
  if (text.length === limit && last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1)
  return text
}
