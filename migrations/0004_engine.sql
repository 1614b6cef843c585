-- The answer engine: sections, passages and one FTS5 index shared by every base
-- (terms are prefixed with the base key, so a query reads only its own base).
CREATE TABLE IF NOT EXISTS engine_bases (
  base_id TEXT PRIMARY KEY,
  key INTEGER NOT NULL UNIQUE,
  n_passages INTEGER NOT NULL DEFAULT 0
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS engine_sections (
  section_id TEXT PRIMARY KEY,
  base_id TEXT NOT NULL,
  document_id TEXT NOT NULL,
  title TEXT NOT NULL,
  filename TEXT NOT NULL,
  cart_key TEXT NOT NULL,
  n_passages INTEGER NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS engine_sections_base ON engine_sections (base_id, document_id);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS engine_sections_document ON engine_sections (document_id);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS engine_sections_cart ON engine_sections (cart_key);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS engine_passages (
  id INTEGER PRIMARY KEY,
  section_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  text TEXT NOT NULL,
  sents BLOB NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS engine_passages_section ON engine_passages (section_id);
--> statement-breakpoint
CREATE VIRTUAL TABLE IF NOT EXISTS engine_fts USING fts5(
  terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE IF NOT EXISTS engine_fts_vocab USING fts5vocab(engine_fts, row);
