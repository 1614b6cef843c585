-- A base whose passages are indexed in an FTS5 table of its own (`engine_fts_<key>`), so BM25's
-- passage count and average length are the base's alone: its ranking does not move when other
-- workspaces index theirs. Bases indexed before keep the shared `engine_fts` until they are emptied.
ALTER TABLE engine_bases ADD COLUMN own_index INTEGER NOT NULL DEFAULT 0;
