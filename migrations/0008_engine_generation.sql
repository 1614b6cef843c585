-- Engine index tables are hand-written (FTS5 is not in the drizzle schema). A base's generation
-- counts the changes to its index, so cached term counts can tell they are stale.
ALTER TABLE engine_bases ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
