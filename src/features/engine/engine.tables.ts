import { sql } from 'drizzle-orm'
import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { UNMEASURED } from './engine.cart-keys'

// The engine's tables, declared as the hand-written migrations left them (0004, 0008, 0009, 0012,
// 0015, 0016, 0019, 0032, 0034) so that its rows' types are inferred from here. Migration 0035 only
// brought drizzle-kit's snapshot up to them: it creates nothing. What drizzle does not model stays
// SQL of those migrations, the SQLite-only part of the index: the FTS5 tables (`engine_fts`,
// `engine_fts_vocab`, and each base's own `engine_fts_<key>` made by engine.fts.repo.ts), the
// trigger that keeps a base's cartridge bytes as a size is recorded (0012), and WITHOUT ROWID on
// the vectors and encodings. A section's key and TEXT primary keys carry no NOT NULL in SQLite
// (the ids are never null), and the key's UNIQUE is SQLite's own autoindex, not a named index.
//
// Blobs are read by bun:sqlite's prepared statements, which give a Uint8Array (drizzle's own reads
// give a Buffer, which is one): `$type<Uint8Array>()` says what every reader gets.

/** A base as the engine indexes it: its numeric key (the FTS5 terms' prefix) and counters. */
export const engineBases = sqliteTable('engine_bases', {
  baseId: text('base_id').primaryKey(),
  key: integer('key').notNull().unique(),
  nPassages: integer('n_passages').notNull().default(0),
  /** Counts the changes to its index, so cached term counts can tell they are stale. */
  generation: integer('generation').notNull().default(0),
  /** Bytes of the cartridges its sections use, each once (EngineRepo.putSection, removeSection; the trigger). */
  cartBytes: integer('cart_bytes').notNull().default(0),
  /** 1 when its passages are in an FTS5 table of its own, 0 while in the shared `engine_fts`. */
  ownIndex: integer('own_index').notNull().default(0),
})

/** An indexed section of a document: the source fields of its passages, and its cartridge. */
export const engineSections = sqliteTable(
  'engine_sections',
  {
    sectionId: text('section_id').primaryKey(),
    baseId: text('base_id').notNull(),
    documentId: text('document_id').notNull(),
    title: text('title').notNull(),
    filename: text('filename').notNull(),
    /** The cartridge's object key; `pending:` or `failed:` before it while it waits or after a failed build. */
    cartKey: text('cart_key').notNull(),
    nPassages: integer('n_passages').notNull(),
    /** Bytes of the cartridge in the store; 0 while unknown. */
    cartBytes: integer('cart_bytes').notNull().default(0),
  },
  (t) => [
    // A document's sections are looked up within their base: no index of their own (each index is
    // one more B-tree on random keys that every section row of an onboarding run writes).
    index('engine_sections_base').on(t.baseId, t.documentId),
    index('engine_sections_cart').on(t.cartKey),
    index('engine_sections_base_cart').on(t.baseId, t.cartKey, t.cartBytes),
    // Built cartridges whose size is not known yet: the usage report measures them once. A section
    // waiting for its cartridge (or whose build failed) has none, and is not in it: a run's rows
    // never are, and a build records key and size in one update (BuildsRepo.setCart).
    index('engine_sections_unmeasured').on(t.cartKey).where(sql.raw(UNMEASURED)),
  ],
)

/** A passage: its text and sentence spans; its rowid is its FTS5 row's. */
export const enginePassages = sqliteTable(
  'engine_passages',
  {
    id: integer('id').primaryKey(),
    sectionId: text('section_id').notNull(),
    ordinal: integer('ordinal').notNull(),
    text: text('text').notNull(),
    sents: blob('sents', { mode: 'buffer' }).$type<Uint8Array>().notNull(),
    /** Its content words as ranking reads them (rank/passage-words.ts); null when indexed before they were stored. */
    words: blob('words', { mode: 'buffer' }).$type<Uint8Array>(),
    /** Where it starts in its section's text; null when indexed before starts were stored. */
    start: integer('start'),
  },
  (t) => [index('engine_passages_section').on(t.sectionId)],
)

/** Passage vectors from an embeddings server; `model` names what made them. */
export const engineVectors = sqliteTable(
  'engine_vectors',
  {
    sectionId: text('section_id').notNull(),
    ordinal: integer('ordinal').notNull(),
    model: text('model').notNull(),
    vec: blob('vec', { mode: 'buffer' }).$type<Uint8Array>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sectionId, t.ordinal] })],
)

/** The built-in sentence encoder's int8 vector of each passage (support/encodings.ts). */
export const engineEncodings = sqliteTable(
  'engine_encodings',
  {
    sectionId: text('section_id').notNull(),
    ordinal: integer('ordinal').notNull(),
    vec: blob('vec', { mode: 'buffer' }).$type<Uint8Array>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sectionId, t.ordinal] })],
)
