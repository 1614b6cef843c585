import { sql } from 'drizzle-orm'
import { type AnySQLiteColumn, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/**
 * Document bases ("corpora" in paths). The counters are kept by triggers on `documents` (migration
 * 0011_document_counters) in the transaction of every change, so reading a base never counts rows.
 */
export const corpora = sqliteTable(
  'corpora',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    sourceType: text('source_type').notNull().default('upload'),
    status: text('status', { enum: ['new', 'training', 'ready', 'failed'] })
      .notNull()
      .default('new'),
    /** Catalog description from the describe operation; null until one complete sentence was produced. */
    description: text('description'),
    /** When a source's sync or an import last listed its folder to the end; null until one has. */
    lastSyncedAt: integer('last_synced_at'),
    /**
     * 1: once the base has been onboarded, new and changed documents are onboarded by themselves
     * (docs/onboarding-and-answers.md, "Automatic onboarding"); 0: only when someone starts a run.
     */
    autoOnboard: integer('auto_onboard').notNull().default(1),
    /**
     * 1 once someone canceled onboarding: the waiting documents are not onboarded by themselves until
     * documents are added or changed (the next automatic run takes them all) or a run is started.
     */
    autoOnboardPaused: integer('auto_onboard_paused').notNull().default(0),
    /**
     * The cart strategy's state: `none` until a run has indexed something; `building` while the
     * cartridges a run left for its deferred job are built (the base answers by rag meanwhile, cart
     * questions too); `ready` once every indexed section has its cartridge.
     */
    cartStatus: text('cart_status', { enum: ['none', 'building', 'ready'] })
      .notNull()
      .default('none'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** Parent documents (files; sections are not counted). */
    nDocuments: integer('n_documents').notNull().default(0),
    /**
     * Parent documents by status: `ready`; `onboarding` (in a run now); `failed`; `pending` (new or
     * changed, waiting for onboarding). Until migration 0018 `documents_onboarding` counted the
     * pending ones too, so a base showed documents "onboarding" before any run started.
     */
    documentsReady: integer('documents_ready').notNull().default(0),
    documentsOnboarding: integer('documents_onboarding').notNull().default(0),
    documentsFailed: integer('documents_failed').notNull().default(0),
    documentsPending: integer('documents_pending').notNull().default(0),
    /** Every row of `documents` of the base, sections included (the total of `?sections=true`). */
    nRows: integer('n_rows').notNull().default(0),
    /** Bytes the base's documents hold in the object store: raw objects (each once) and text sidecars. */
    storageBytes: integer('storage_bytes').notNull().default(0),
  },
  (t) => [index('corpora_workspace').on(t.workspaceId, t.createdAt)],
)

/**
 * Documents: one parent row per file (by relative path) and, for long files, one row per section.
 * Sections have their own lifecycle and cart id; the parent's status summarises them.
 */
export const documents = sqliteTable(
  'documents',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    parentId: text('parent_id').references((): AnySQLiteColumn => documents.id, { onDelete: 'cascade' }),
    /** Relative path of the file in the base (the wire `filename`). */
    path: text('path').notNull(),
    size: integer('size').notNull().default(0),
    contentType: text('content_type'),
    sha256: text('sha256'),
    status: text('status', { enum: ['pending', 'onboarding', 'ready', 'failed'] })
      .notNull()
      .default('pending'),
    error: text('error'),
    /** How the document arrived: upload, push (the sync protocol) or import (a connector). */
    source: text('source').notNull().default('upload'),
    sectionIndex: integer('section_index'),
    sectionTitle: text('section_title'),
    sectionCount: integer('section_count').notNull().default(1),
    /** Content address of the section's cartridge; shared by identical texts. */
    cartId: text('cart_id'),
    rawKey: text('raw_key'),
    textKey: text('text_key'),
    /** Characters of extracted text (sections: of the section). */
    textChars: integer('text_chars').notNull().default(0),
    /** Where a section's text starts in its parent's text sidecar (sections share the parent's). */
    textOffset: integer('text_offset'),
    /** Bytes of the text sidecar (parents; 0 until extracted), counted in the base's storage. */
    textBytes: integer('text_bytes').notNull().default(0),
    /**
     * A PDF's pages as ranges of the sidecar (parents): JSON `[[start, end], ...]`, page n at index
     * n - 1, UTF-16 code units (corpora.pages.ts). Null for other formats and until extracted.
     */
    pageRanges: text('page_ranges'),
    /**
     * Version of the text extraction that wrote the sidecar and sections (parents; ingest's
     * EXTRACTOR_VERSION). Null until extracted, and for documents extracted before versions were
     * kept: a `force` run extracts a document again when its version is older than the current one.
     */
    extractorVersion: integer('extractor_version'),
    /**
     * Who keeps the document in step with a folder: `push` when a push commit created it or gave it
     * its content, so a later `delete_missing` may remove it; null for uploads and upserts (a push
     * never deletes them).
     */
    managedBy: text('managed_by'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('documents_corpus_path').on(t.corpusId, t.path).where(sql`${t.parentId} IS NULL`),
    index('documents_parent').on(t.parentId),
    index('documents_corpus_created').on(t.corpusId, t.createdAt),
    index('documents_cart').on(t.cartId),
    // Deletion and the orphan sweep ask "does any row still use this object?"; dedup asks by content.
    index('documents_raw_key').on(t.rawKey),
    index('documents_text_key').on(t.textKey),
    index('documents_corpus_sha').on(t.corpusId, t.sha256),
  ],
)
