-- The cartridge-bytes triggers (0012_engine_cart_bytes.sql) only where they change something: a
-- section row recording no size (0: a section waiting for its cartridge, as every section of an
-- onboarding run does) adds nothing to its base's bytes when inserted and takes nothing away when
-- deleted, so the triggers skip the look-up and the base's row update for it.
DROP TRIGGER IF EXISTS engine_sections_cart_bytes_insert;
--> statement-breakpoint
CREATE TRIGGER engine_sections_cart_bytes_insert AFTER INSERT ON engine_sections WHEN NEW.cart_bytes > 0 BEGIN
  UPDATE engine_bases SET cart_bytes = cart_bytes + max(0, NEW.cart_bytes - coalesce(
    (SELECT max(s.cart_bytes) FROM engine_sections s
     WHERE s.base_id = NEW.base_id AND s.cart_key = NEW.cart_key AND s.section_id != NEW.section_id), 0))
  WHERE base_id = NEW.base_id;
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS engine_sections_cart_bytes_delete;
--> statement-breakpoint
CREATE TRIGGER engine_sections_cart_bytes_delete AFTER DELETE ON engine_sections WHEN OLD.cart_bytes > 0 BEGIN
  UPDATE engine_bases SET cart_bytes = cart_bytes - max(0, OLD.cart_bytes - coalesce(
    (SELECT max(s.cart_bytes) FROM engine_sections s
     WHERE s.base_id = OLD.base_id AND s.cart_key = OLD.cart_key), 0))
  WHERE base_id = OLD.base_id;
END;
