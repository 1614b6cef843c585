CREATE TABLE "engine_index_changes" (
	"base_id" text NOT NULL,
	"generation" bigint NOT NULL,
	"object_key" text NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "engine_index_changes_base_id_generation_pk" PRIMARY KEY("base_id","generation")
);
--> statement-breakpoint
ALTER TABLE "engine_publications" ADD COLUMN "snapshot_generation" bigint DEFAULT 0 NOT NULL;