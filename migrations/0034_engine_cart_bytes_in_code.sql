-- The cartridge-bytes insert and delete triggers (0012_engine_cart_bytes.sql, 0033) are done by the
-- engine's repo instead, after the row's insert or delete and with the same statement
-- (EngineRepo.putSection, removeSection; the only writers of the table's rows). A trigger made every
-- insert and delete of a section row a statement with a statement journal, and a statement journal in
-- a transaction that has written an FTS5 table makes FTS5 write its pending terms as a segment of
-- their own: an onboarding run's group wrote one segment a section (5,000 on 5,000 small files) and
-- merged them, instead of one a group. The update trigger (a built cartridge's size recorded) stays.
DROP TRIGGER IF EXISTS engine_sections_cart_bytes_insert;
--> statement-breakpoint
DROP TRIGGER IF EXISTS engine_sections_cart_bytes_delete;
