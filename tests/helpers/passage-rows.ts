import type { PassageRow } from '../../src/features/engine/engine.rows'

/** A passage row of one sentence (the whole text) as the engine's repo reads it, for the passage caches' tests. */
export function passageRow(id: number, text: string, ordinal = 0): PassageRow {
  const sents = new Uint8Array(new Uint32Array([0, text.length]).buffer)
  return {
    id,
    sectionId: `s${id}`,
    ordinal,
    text,
    sents,
    words: null,
    documentId: 'd',
    title: 't',
    filename: 'f',
  }
}
