import { type Detection, detectType, KIND_CONTENT_TYPES, kindByName } from '../extract/extract'

/** Bytes kept from the start of each uploaded file for type detection. */
export const HEAD_BYTES = 64 * 1024
/** A zip-shaped file up to this size is read back whole to look inside it; larger ones go by name. */
const ZIP_READBACK_BYTES = 64 * 1024 * 1024

const OFFICE_KINDS = new Set(['docx', 'pptx', 'xlsx'])

/** Collects the first `HEAD_BYTES` of a stream as it passes. */
export class HeadBuffer {
  private readonly chunks: Uint8Array[] = []
  private size = 0
  /** Keeps what is still needed of a chunk. */
  add(chunk: Uint8Array): void {
    if (this.size >= HEAD_BYTES) return
    const take = chunk.subarray(0, HEAD_BYTES - this.size)
    this.chunks.push(take.slice())
    this.size += take.byteLength
  }
  /** The bytes collected. */
  bytes(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.chunks))
  }
}

/**
 * Decides whether an uploaded file can be taken, from its first bytes (magic numbers, text or not),
 * its name and its declared type. Office files are zips whose table of contents sits at the end,
 * so a zip-shaped file is read back whole when small enough, and judged by its extension beyond.
 */
export async function detectUpload(
  filename: string,
  head: Uint8Array,
  size: number,
  contentType: string | undefined,
  readBack: () => Promise<Uint8Array | null>,
): Promise<Detection> {
  const first = await detectType(filename, head, contentType)
  if (first.supported || first.contentType !== 'application/zip' || size <= head.byteLength) return first
  if (size <= ZIP_READBACK_BYTES) {
    const whole = await readBack()
    if (whole) return detectType(filename, whole, contentType)
  }
  const named = kindByName(filename)
  const office = named && OFFICE_KINDS.has(named) ? named : undefined
  // Extraction opens the package properly and fails the document if it is not what its name says.
  return office ? { supported: true, kind: office, contentType: KIND_CONTENT_TYPES[office] } : first
}
