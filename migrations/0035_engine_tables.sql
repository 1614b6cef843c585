-- The engine's tables declared in drizzle (src/features/engine/engine.tables.ts), exactly as the
-- hand-written migrations before made them (0004, 0008, 0009, 0012, 0015, 0016, 0019, 0032, 0034).
-- drizzle-kit generated their CREATE statements here because its snapshot did not know them; every
-- database that reaches this migration has them already, so it only brings the snapshot up to date
-- and changes nothing. (bun:sqlite refuses SQL with no statement, so it runs one that does nothing.)
SELECT 1;
