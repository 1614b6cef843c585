ALTER TABLE `corpora` ADD `auto_onboard` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `corpora` ADD `documents_pending` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `load_test_queries` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `compare_queries` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- `documents_onboarding` counted `pending` and `onboarding` together, so a base showed documents
-- "onboarding" before any run had started. From here it counts documents in a run, and
-- `documents_pending` those waiting for one (new or changed). The triggers of 0011 are replaced
-- by the same ones with the two counters apart; everything else they keep is unchanged.
UPDATE corpora SET
  documents_onboarding = (SELECT count(*) FROM documents d
    WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL AND d.status = 'onboarding'),
  documents_pending = (SELECT count(*) FROM documents d
    WHERE d.corpus_id = corpora.id AND d.parent_id IS NULL AND d.status = 'pending');
--> statement-breakpoint
-- `last_synced_at` moved on every upload and push, so a base fed by hand said "last synced" while
-- no sync or import had ever run. It now says when a source's sync or an import last listed its
-- folder to the end: taken from those runs, null where there were none.
UPDATE corpora SET last_synced_at = (SELECT max(coalesce(r.finished_at, r.started_at)) FROM sync_runs r
  WHERE r.corpus_id = corpora.id AND r.source_id IS NOT NULL AND r.status IN ('succeeded', 'partial'));
--> statement-breakpoint
DROP TRIGGER documents_counters_insert;
--> statement-breakpoint
DROP TRIGGER documents_counters_delete;
--> statement-breakpoint
DROP TRIGGER documents_counters_update;
--> statement-breakpoint
CREATE TRIGGER documents_counters_insert AFTER INSERT ON documents BEGIN
  UPDATE corpora SET
    n_documents = n_documents + (NEW.parent_id IS NULL),
    documents_ready = documents_ready + (NEW.parent_id IS NULL AND NEW.status = 'ready'),
    documents_onboarding = documents_onboarding + (NEW.parent_id IS NULL AND NEW.status = 'onboarding'),
    documents_pending = documents_pending + (NEW.parent_id IS NULL AND NEW.status = 'pending'),
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
    documents_onboarding = documents_onboarding - (OLD.parent_id IS NULL AND OLD.status = 'onboarding'),
    documents_pending = documents_pending - (OLD.parent_id IS NULL AND OLD.status = 'pending'),
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
    documents_onboarding = documents_onboarding - (OLD.parent_id IS NULL AND OLD.status = 'onboarding'),
    documents_pending = documents_pending - (OLD.parent_id IS NULL AND OLD.status = 'pending'),
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
    documents_onboarding = documents_onboarding + (NEW.parent_id IS NULL AND NEW.status = 'onboarding'),
    documents_pending = documents_pending + (NEW.parent_id IS NULL AND NEW.status = 'pending'),
    documents_failed = documents_failed + (NEW.parent_id IS NULL AND NEW.status = 'failed'),
    n_rows = n_rows + 1,
    storage_bytes = storage_bytes
      + CASE WHEN NEW.parent_id IS NULL AND NEW.text_key IS NOT NULL THEN NEW.text_bytes ELSE 0 END
      + CASE WHEN NEW.raw_key IS NOT NULL AND OLD.raw_key IS NOT NEW.raw_key AND NOT EXISTS
          (SELECT 1 FROM documents d WHERE d.raw_key = NEW.raw_key AND d.id != NEW.id)
        THEN NEW.size ELSE 0 END
  WHERE id = NEW.corpus_id;
END;
