CREATE TABLE `ingest_uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`corpus_id` text NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	`object_key` text NOT NULL,
	`verified` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`corpus_id`) REFERENCES `corpora`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ingest_uploads_corpus_sha` ON `ingest_uploads` (`corpus_id`,`sha256`);--> statement-breakpoint
CREATE INDEX `ingest_uploads_key` ON `ingest_uploads` (`object_key`);--> statement-breakpoint
CREATE INDEX `ingest_uploads_expires` ON `ingest_uploads` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sync_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`corpus_id` text NOT NULL,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`created` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`unchanged` integer DEFAULT 0 NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`corpus_id`) REFERENCES `corpora`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sync_runs_corpus` ON `sync_runs` (`corpus_id`,`started_at`);--> statement-breakpoint
ALTER TABLE `documents` ADD `text_offset` integer;--> statement-breakpoint
CREATE INDEX `documents_raw_key` ON `documents` (`raw_key`);--> statement-breakpoint
CREATE INDEX `documents_text_key` ON `documents` (`text_key`);--> statement-breakpoint
CREATE INDEX `documents_corpus_sha` ON `documents` (`corpus_id`,`sha256`);