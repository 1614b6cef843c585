CREATE TABLE "engine_publications" (
	"base_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"generation" bigint NOT NULL,
	"object_key" text NOT NULL,
	"bytes" bigint NOT NULL,
	"published_at" bigint NOT NULL,
	"owner" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "replicas" (
	"owner" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" bigint NOT NULL,
	"build" text NOT NULL,
	"started_at" bigint NOT NULL,
	"seen_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "security_rev" bigint DEFAULT 0 NOT NULL;