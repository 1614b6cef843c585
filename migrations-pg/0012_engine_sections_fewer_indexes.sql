-- Two fewer B-trees for every section row an onboarding run writes: a document's sections are found
-- within their base (engine_sections_base), and the unmeasured index holds only built cartridges
-- whose size is unknown, which a run's rows (waiting for their cartridge) never are.
DROP INDEX "engine_sections_document";--> statement-breakpoint
DROP INDEX "engine_sections_unmeasured";--> statement-breakpoint
CREATE INDEX "engine_sections_unmeasured" ON "engine_sections" USING btree ("cart_key") WHERE cart_bytes = 0 AND cart_key NOT LIKE 'pending:%' AND cart_key NOT LIKE 'failed:%';