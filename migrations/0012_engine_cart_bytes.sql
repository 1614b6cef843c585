-- Bytes of cartridges in the object store, per base, for the usage report. A base occupies each
-- cartridge its sections use once (identical sections share one); a cartridge shared by two bases
-- of a workspace counts in each, since deleting either alone would not free it. Kept by triggers in
-- the transaction of every change to `engine_sections`, as the sum over the base's cartridges of
-- the size its rows record (the largest, so a size learnt later replaces an unknown 0).
ALTER TABLE engine_sections ADD COLUMN cart_bytes INTEGER NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE engine_bases ADD COLUMN cart_bytes INTEGER NOT NULL DEFAULT 0;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS engine_sections_base_cart ON engine_sections (base_id, cart_key, cart_bytes);
--> statement-breakpoint
-- Sections whose cartridge size is not known yet (indexed before this migration): the usage report
-- asks the store for them once; the index is empty afterwards.
CREATE INDEX IF NOT EXISTS engine_sections_unmeasured ON engine_sections (cart_key) WHERE cart_bytes = 0;
--> statement-breakpoint
CREATE TRIGGER engine_sections_cart_bytes_insert AFTER INSERT ON engine_sections BEGIN
  UPDATE engine_bases SET cart_bytes = cart_bytes + max(0, NEW.cart_bytes - coalesce(
    (SELECT max(s.cart_bytes) FROM engine_sections s
     WHERE s.base_id = NEW.base_id AND s.cart_key = NEW.cart_key AND s.section_id != NEW.section_id), 0))
  WHERE base_id = NEW.base_id;
END;
--> statement-breakpoint
CREATE TRIGGER engine_sections_cart_bytes_delete AFTER DELETE ON engine_sections BEGIN
  UPDATE engine_bases SET cart_bytes = cart_bytes - max(0, OLD.cart_bytes - coalesce(
    (SELECT max(s.cart_bytes) FROM engine_sections s
     WHERE s.base_id = OLD.base_id AND s.cart_key = OLD.cart_key), 0))
  WHERE base_id = OLD.base_id;
END;
--> statement-breakpoint
-- A size learnt for a row: what the base counts for that cartridge becomes the largest of its rows.
CREATE TRIGGER engine_sections_cart_bytes_update AFTER UPDATE OF cart_bytes ON engine_sections BEGIN
  UPDATE engine_bases SET cart_bytes = cart_bytes
    + max(NEW.cart_bytes, coalesce((SELECT max(s.cart_bytes) FROM engine_sections s
        WHERE s.base_id = NEW.base_id AND s.cart_key = NEW.cart_key AND s.section_id != NEW.section_id), 0))
    - max(OLD.cart_bytes, coalesce((SELECT max(s.cart_bytes) FROM engine_sections s
        WHERE s.base_id = NEW.base_id AND s.cart_key = NEW.cart_key AND s.section_id != NEW.section_id), 0))
  WHERE base_id = NEW.base_id;
END;
