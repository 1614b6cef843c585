import { sha256Hex } from '../../../platform/crypto/hash'
import { detectType } from '../extract/extract'
import type { Registrar } from '../ingest.registrar'
import type { Incoming, IngestDeps } from '../ingest.types'
import { readOnUpload } from './extract-steps'
import { SMALL_PART_BYTES } from './multipart'
import { Packer } from './packs'
import { normalizePath } from './paths'

/** What storing a source's files works with. */
export type SourceFileDeps = Pick<IngestDeps, 'objects' | 'corpora' | 'extractor' | 'random' | 'clock'> & {
  registrar: Registrar
}

/**
 * A file a source gave, taken (`item`: what it is once stored, after SourceFiles.finish; `fresh`:
 * whether its content is new to the base), or why it cannot be taken.
 */
export type StoredFile = { ok: true; item: Promise<Incoming>; fresh: boolean } | { ok: false; error: string }

/**
 * The files of one batch of a source's sync, stored together as an upload's are (packs.ts): small
 * new files (at most SMALL_PART_BYTES) written as packs of about 1 MiB, one object each and each
 * document's raw key its range (a few files, or larger ones, one object a file), all unsynced, then
 * flushed at once by `finish` before the batch registers any of them. Before, each file was one
 * object created and flushed on its own (a file and a folder flush a file). Content the base
 * already holds is not stored twice. A small plain file is read as it is stored (`readOnUpload`:
 * registered extracted, its sidecar in its pack). Every key written is in flight until the batch
 * registers it.
 */
export class SourceFiles {
  /** Every object written (packs and single files): the batch's fresh keys. */
  readonly written: string[] = []
  private readonly packer: Packer

  constructor(
    private readonly deps: SourceFileDeps,
    private readonly workspaceId: string,
    private readonly corpusId: string,
  ) {
    this.packer = new Packer(deps, workspaceId, corpusId, this.written)
  }

  /**
   * Takes one fetched file: its type is checked as an upload's is (a refused type or an unsafe
   * path is a per-file error, not a failed sync); a new small file waits for its pack.
   */
  async store(file: { path: string; bytes: Uint8Array; contentType: string | null }): Promise<StoredFile> {
    const { objects, corpora, registrar } = this.deps
    let path: string
    try {
      path = normalizePath(file.path)
    } catch (e) {
      return { ok: false, error: (e as Error).message }
    }
    const detection = await detectType(path, file.bytes, file.contentType ?? undefined)
    if (!detection.supported) return { ok: false, error: detection.message }
    const { contentType } = detection
    const sha256 = sha256Hex(file.bytes)
    const size = file.bytes.byteLength
    const existing = await corpora.rawKeyBySha(this.corpusId, sha256)
    if (existing)
      return {
        ok: true,
        item: Promise.resolve({ path, sha256, size, contentType, rawKey: existing }),
        fresh: false,
      }
    if (size <= SMALL_PART_BYTES) {
      // A plain file read in this process anyway is read now, as an upload's is: registered extracted.
      const { extractor } = this.deps
      const read = extractor
        ? await readOnUpload(extractor, this.deps, { bytes: file.bytes, filename: path, contentType })
        : null
      return {
        ok: true,
        item: (await this.packer.add(file.bytes, { path, contentType }, read)).stored,
        fresh: true,
      }
    }
    const key = registrar.newBlobKey(this.workspaceId, this.corpusId)
    this.written.push(key)
    registrar.inflight.add(key)
    await objects.put(key, file.bytes, { contentType, deferSync: true })
    return { ok: true, item: Promise.resolve({ path, sha256, size, contentType, rawKey: key }), fresh: true }
  }

  /** Writes what waits for a pack and flushes every object written, all at once. */
  async finish(): Promise<void> {
    await this.packer.flush()
    await Promise.all(this.packer.writes)
    await this.deps.objects.sync(this.written)
  }

  /** Removes what was written (a batch that failed before registering): none of it is named. */
  async undo(): Promise<void> {
    await Promise.allSettled(this.packer.writes)
    for (const key of this.written) {
      this.deps.registrar.inflight.delete(key)
      await this.deps.objects.delete(key).catch(() => {})
    }
  }
}
