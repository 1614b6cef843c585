-- Counters of a base kept in the transaction of every change to its documents, so reading or
-- listing bases never reads `documents` (it counted them on every read before: 1.1k req/s at 2,400
-- documents). Triggers cover every write path at once: uploads, pushes, upserts, extraction,
-- onboarding status changes, section splits, deletes and the cascade of a base delete.
--
-- What counts, as the old count(*) did: parent rows only (sections are parts of a file), by status
-- (`ready`; `pending` or `onboarding`; `failed`). `n_rows` counts every row, sections included.
-- `storage_bytes`: each raw object once (rows of a base share an object by content; its size is the
-- size of every row naming it) plus each parent's text sidecar (`text_bytes`, its own object).

-- Sidecar sizes of documents extracted before this migration: the sections' UTF-8 bytes joined by
-- blank lines; a one-section text has no section rows, so its character count stands in (exact for
-- ASCII). Documents extracted from now on record the size the store reported.
UPDATE documents SET text_bytes = coalesce(
  (SELECT sum(s.size) + 2 * (count(*) - 1) FROM documents s WHERE s.parent_id = documents.id HAVING count(*) > 0),
  text_chars)
WHERE parent_id IS NULL AND text_key IS NOT NULL;
--> statement-breakpoint
-- Pushed documents are managed by push. Upserts wrote the same source and cannot be told apart;
-- treating them as pushed keeps `delete_missing` working as before for folders already pushed.
UPDATE documents SET managed_by = 'push' WHERE parent_id IS NULL AND source = 'push';
--> statement-breakpoint
UPDATE corpora SET
  n_documents = (SELECT count(*) FROM documents d WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL),
  documents_ready = (SELECT count(*) FROM documents d
    WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL AND d.status = 'ready'),
  documents_onboarding = (SELECT count(*) FROM documents d
    WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL AND d.status IN ('pending', 'onboarding')),
  documents_failed = (SELECT count(*) FROM documents d
    WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL AND d.status = 'failed'),
  n_rows = (SELECT count(*) FROM documents d WHERE d.corpus_id = corpora.id),
  storage_bytes =
    coalesce((SELECT sum(d.size) FROM documents d WHERE d.corpus_id = corpora.id AND d.raw_key IS NOT NULL
      AND d.id = (SELECT min(e.id) FROM documents e WHERE e.raw_key = d.raw_key)), 0)
    + coalesce((SELECT sum(d.text_bytes) FROM documents d
      WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL AND d.text_key IS NOT NULL), 0);
--> statement-breakpoint
CREATE TRIGGER documents_counters_insert AFTER INSERT ON documents BEGIN
  UPDATE corpora SET
    n_documents = n_documents + (NEW.parent_id IS NULL),
    documents_ready = documents_ready + (NEW.parent_id IS NULL AND NEW.status = 'ready'),
    documents_onboarding = documents_onboarding
      + (NEW.parent_id IS NULL AND NEW.status IN ('pending', 'onboarding')),
    documents_failed = documents_failed + (NEW.parent_id IS NULL AND NEW.status = 'failed'),
    n_rows = n_rows + 1,
    storage_bytes = storage_bytes
      + CASE WHEN NEW.parent_id IS NULL AND NEW.text_key IS NOT NULL THEN NEW.text_bytes ELSE 0 END
      -- The first row to name an object brings its bytes; later rows share them.
      + CASE WHEN NEW.raw_key IS NOT NULL AND NOT EXISTS
          (SELECT 1 FROM documents d WHERE d.raw_key = NEW.raw_key AND d.id != NEW.id)
        THEN NEW.size ELSE 0 END
  WHERE id = NEW.corpus_id;
END;
--> statement-breakpoint
CREATE TRIGGER documents_counters_delete AFTER DELETE ON documents BEGIN
  UPDATE corpora SET
    n_documents = n_documents - (OLD.parent_id IS NULL),
    documents_ready = documents_ready - (OLD.parent_id IS NULL AND OLD.status = 'ready'),
    documents_onboarding = documents_onboarding
      - (OLD.parent_id IS NULL AND OLD.status IN ('pending', 'onboarding')),
    documents_failed = documents_failed - (OLD.parent_id IS NULL AND OLD.status = 'failed'),
    n_rows = n_rows - 1,
    storage_bytes = storage_bytes
      - CASE WHEN OLD.parent_id IS NULL AND OLD.text_key IS NOT NULL THEN OLD.text_bytes ELSE 0 END
      -- The last row to name an object takes its bytes away.
      - CASE WHEN OLD.raw_key IS NOT NULL AND NOT EXISTS
          (SELECT 1 FROM documents d WHERE d.raw_key = OLD.raw_key)
        THEN OLD.size ELSE 0 END
  WHERE id = OLD.corpus_id;
END;
--> statement-breakpoint
-- Sections (no raw object, not counted by status) change status often during onboarding; they skip
-- the update entirely.
CREATE TRIGGER documents_counters_update
AFTER UPDATE OF corpus_id, parent_id, status, size, raw_key, text_key, text_bytes ON documents
WHEN OLD.parent_id IS NULL OR NEW.parent_id IS NULL OR OLD.raw_key IS NOT NULL OR NEW.raw_key IS NOT NULL
BEGIN
  UPDATE corpora SET
    n_documents = n_documents - (OLD.parent_id IS NULL),
    documents_ready = documents_ready - (OLD.parent_id IS NULL AND OLD.status = 'ready'),
    documents_onboarding = documents_onboarding
      - (OLD.parent_id IS NULL AND OLD.status IN ('pending', 'onboarding')),
    documents_failed = documents_failed - (OLD.parent_id IS NULL AND OLD.status = 'failed'),
    n_rows = n_rows - 1,
    storage_bytes = storage_bytes
      - CASE WHEN OLD.parent_id IS NULL AND OLD.text_key IS NOT NULL THEN OLD.text_bytes ELSE 0 END
      - CASE WHEN OLD.raw_key IS NOT NULL AND OLD.raw_key IS NOT NEW.raw_key AND NOT EXISTS
          (SELECT 1 FROM documents d WHERE d.raw_key = OLD.raw_key)
        THEN OLD.size ELSE 0 END
  WHERE id = OLD.corpus_id;
  UPDATE corpora SET
    n_documents = n_documents + (NEW.parent_id IS NULL),
    documents_ready = documents_ready + (NEW.parent_id IS NULL AND NEW.status = 'ready'),
    documents_onboarding = documents_onboarding
      + (NEW.parent_id IS NULL AND NEW.status IN ('pending', 'onboarding')),
    documents_failed = documents_failed + (NEW.parent_id IS NULL AND NEW.status = 'failed'),
    n_rows = n_rows + 1,
    storage_bytes = storage_bytes
      + CASE WHEN NEW.parent_id IS NULL AND NEW.text_key IS NOT NULL THEN NEW.text_bytes ELSE 0 END
      + CASE WHEN NEW.raw_key IS NOT NULL AND OLD.raw_key IS NOT NEW.raw_key AND NOT EXISTS
          (SELECT 1 FROM documents d WHERE d.raw_key = NEW.raw_key AND d.id != NEW.id)
        THEN NEW.size ELSE 0 END
  WHERE id = NEW.corpus_id;
END;
