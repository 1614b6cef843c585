-- A base's document counters and storage bytes on PostgreSQL, as SQLite's triggers keep them
-- (migrations/0011_document_counters.sql, replaced in 0018), and an engine base's cartridge bytes
-- when a section's size is recorded (0012). BEFORE ROW triggers, not AFTER: in a statement that
-- writes many rows, a BEFORE trigger's queries see the rows the statement wrote before this one
-- and not the ones after, as SQLite's per-row triggers do; an AFTER trigger would see them all, and
-- two rows of one statement naming one object would both skip (or both take) its bytes. Because the
-- row is not yet written (or not yet gone), "another row names the object" excludes the row itself.
CREATE FUNCTION documents_counters_add(r documents, sign bigint, other_than text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE corpora SET
    n_documents = n_documents + sign * (r.parent_id IS NULL)::int,
    documents_ready = documents_ready + sign * (r.parent_id IS NULL AND r.status = 'ready')::int,
    documents_onboarding = documents_onboarding + sign * (r.parent_id IS NULL AND r.status = 'onboarding')::int,
    documents_pending = documents_pending + sign * (r.parent_id IS NULL AND r.status = 'pending')::int,
    documents_failed = documents_failed + sign * (r.parent_id IS NULL AND r.status = 'failed')::int,
    n_rows = n_rows + sign,
    storage_bytes = storage_bytes + sign * (
      CASE WHEN r.parent_id IS NULL AND r.text_key IS NOT NULL THEN r.text_bytes ELSE 0 END
      -- The first row to name an object brings its bytes, the last takes them away; `other_than`
      -- null: the object's bytes stay as they are (an update that keeps the row's object).
      + CASE WHEN other_than IS NOT NULL AND r.raw_key IS NOT NULL AND NOT EXISTS
          (SELECT 1 FROM documents d WHERE d.raw_key = r.raw_key AND d.id <> other_than)
        THEN r.size ELSE 0 END)
  WHERE id = r.corpus_id;
END
$$;
--> statement-breakpoint
CREATE FUNCTION documents_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM documents_counters_add(NEW, 1, NEW.id);
    RETURN NEW;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM documents_counters_add(OLD, -1, OLD.id);
    RETURN OLD;
  END IF;
  -- An update takes the old row out and puts the new one in; an object kept by the row keeps its bytes.
  PERFORM documents_counters_add(OLD, -1,
    CASE WHEN OLD.raw_key IS DISTINCT FROM NEW.raw_key THEN OLD.id END);
  PERFORM documents_counters_add(NEW, 1,
    CASE WHEN OLD.raw_key IS DISTINCT FROM NEW.raw_key THEN NEW.id END);
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER documents_counters_insert BEFORE INSERT ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_counters();
--> statement-breakpoint
CREATE TRIGGER documents_counters_delete BEFORE DELETE ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_counters();
--> statement-breakpoint
-- Sections (no raw object, not counted by status) change status often during onboarding; they skip
-- the update entirely.
CREATE TRIGGER documents_counters_update
  BEFORE UPDATE OF corpus_id, parent_id, status, size, raw_key, text_key, text_bytes ON documents
  FOR EACH ROW
  WHEN (OLD.parent_id IS NULL OR NEW.parent_id IS NULL OR OLD.raw_key IS NOT NULL OR NEW.raw_key IS NOT NULL)
  EXECUTE FUNCTION documents_counters();
--> statement-breakpoint
CREATE FUNCTION engine_sections_cart_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  others bigint;
BEGIN
  SELECT coalesce(max(s.cart_bytes), 0) INTO others FROM engine_sections s
    WHERE s.base_id = NEW.base_id AND s.cart_key = NEW.cart_key AND s.section_id <> NEW.section_id;
  UPDATE engine_bases SET cart_bytes = cart_bytes + GREATEST(NEW.cart_bytes, others) - GREATEST(OLD.cart_bytes, others)
    WHERE base_id = NEW.base_id;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER engine_sections_cart_bytes_update BEFORE UPDATE OF cart_bytes ON engine_sections
  FOR EACH ROW EXECUTE FUNCTION engine_sections_cart_bytes();
