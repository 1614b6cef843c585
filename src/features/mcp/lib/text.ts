import type { ObjectStore } from '../../../platform/storage/object-store'
import type { DocumentRow } from '../../corpora/corpora.service'

/** Bytes of a text sidecar read to describe a document. */
const HEAD_BYTES = 4096
/** Longest description, in characters. */
export const DESCRIPTION_CHARS = 240
/** Descriptions kept in memory (a few bytes each; a listing with `q` reads every document's). */
const MAX_DESCRIPTIONS = 50_000
/** Whole texts kept for paged reads, in characters (an agent reads a long document page by page). */
const TEXT_BUDGET_CHARS = 16_000_000

/**
 * Reads what agents see of a document's text: a short description from the opening of its text
 * sidecar, and the whole text for paged reads. Both are cached by sidecar key, which changes when
 * the content does, so a cached entry is never stale.
 */
export class TextCache {
  private readonly descriptions = new Map<string, string | null>()
  private readonly texts = new Map<string, string>()
  private textChars = 0

  constructor(private readonly objects: Pick<ObjectStore, 'get' | 'getText' | 'assertReadable'>) {}

  /** The opening of a document's extracted text (after its title line), or null while it has none. */
  async description(doc: Pick<DocumentRow, 'text_key'>, title?: string): Promise<string | null> {
    const key = doc.text_key
    if (key === null) return null
    await this.readable(key)
    const hit = this.descriptions.get(key)
    if (hit !== undefined) return hit
    const head = await this.head(key)
    const description = head === null ? null : summarise(head, title)
    if (this.descriptions.size >= MAX_DESCRIPTIONS) {
      this.descriptions.delete(this.descriptions.keys().next().value as string)
    }
    this.descriptions.set(key, description)
    return description
  }

  /** The whole extracted text of a document or section, or null while it has none. */
  async text(
    doc: Pick<DocumentRow, 'text_key' | 'parent_id' | 'text_offset' | 'text_chars'>,
  ): Promise<string | null> {
    if (doc.text_key === null) return null
    const whole = await this.sidecar(doc.text_key)
    if (whole === null) return null
    // A section is an exact slice of its parent's sidecar.
    if (doc.parent_id !== null && doc.text_offset !== null) {
      return whole.slice(doc.text_offset, doc.text_offset + doc.text_chars)
    }
    return whole
  }

  /** Cached text is content too: refused, like the store, while its workspace's key is off. */
  private readable(key: string): Promise<void> {
    return this.objects.assertReadable(key.slice(0, key.indexOf('/')))
  }

  private async sidecar(key: string): Promise<string | null> {
    await this.readable(key)
    const hit = this.texts.get(key)
    if (hit !== undefined) {
      // Refresh recency: Map keeps insertion order, the first key is the least recently used.
      this.texts.delete(key)
      this.texts.set(key, hit)
      return hit
    }
    const text = await this.objects.getText(key)
    if (text === null || text.length > TEXT_BUDGET_CHARS) return text
    this.texts.set(key, text)
    this.textChars += text.length
    while (this.textChars > TEXT_BUDGET_CHARS) {
      const [oldest, value] = this.texts.entries().next().value as [string, string]
      this.texts.delete(oldest)
      this.textChars -= value.length
    }
    return text
  }

  /** The first few kilobytes of an object, decoded; a cut multi-byte character is dropped. */
  private async head(key: string): Promise<string | null> {
    const stream = await this.objects.get(key)
    if (!stream) return null
    const reader = stream.getReader()
    const chunks: Uint8Array[] = []
    let total = 0
    try {
      while (total < HEAD_BYTES) {
        const { done, value } = await reader.read()
        if (done) break
        chunks.push(value)
        total += value.byteLength
      }
    } finally {
      await reader.cancel().catch(() => {})
    }
    const bytes = Buffer.concat(chunks).subarray(0, HEAD_BYTES)
    return new TextDecoder('utf-8').decode(bytes, { stream: true })
  }
}

/**
 * The opening of a text as one line: a first line that only repeats the title (a Markdown heading,
 * say) is skipped, whitespace collapsed, cut at a sentence end (or a word) within the length.
 */
export function summarise(text: string, title?: string): string | null {
  const lines = text.trimStart().split('\n')
  const first = lines[0]
    ?.replace(/^#+\s*/, '')
    .trim()
    .toLowerCase()
  if (title && lines.length > 1 && first === title.trim().toLowerCase()) lines.shift()
  const flat = lines.join('\n').replace(/\s+/g, ' ').trim()
  if (!flat) return null
  if (flat.length <= DESCRIPTION_CHARS) return flat
  const window = flat.slice(0, DESCRIPTION_CHARS)
  const sentence = window.match(/^.*[.!?](?=\s)/)?.[0]
  if (sentence && sentence.length >= DESCRIPTION_CHARS / 3) return sentence
  const space = window.lastIndexOf(' ')
  return `${window.slice(0, space > DESCRIPTION_CHARS / 2 ? space : DESCRIPTION_CHARS - 1)}…`
}
