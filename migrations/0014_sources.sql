CREATE TABLE `connections` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`secrets` text NOT NULL,
	`secrets_set` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `connections_workspace` ON `connections` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `source_items` (
	`source_id` text NOT NULL,
	`item_id` text NOT NULL,
	`path` text NOT NULL,
	`version` text NOT NULL,
	`document_id` text,
	`seen_run` text,
	PRIMARY KEY(`source_id`, `item_id`),
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `source_items_seen` ON `source_items` (`source_id`,`seen_run`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`corpus_id` text NOT NULL,
	`connection_id` text NOT NULL,
	`mode` text DEFAULT 'sync' NOT NULL,
	`name` text NOT NULL,
	`folder` text NOT NULL,
	`path_prefix` text DEFAULT '' NOT NULL,
	`interval_minutes` integer,
	`cursor` text,
	`current_run_id` text,
	`next_job_id` text,
	`next_sync_at` integer,
	`last_run_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`corpus_id`) REFERENCES `corpora`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sources_corpus` ON `sources` (`corpus_id`,`mode`,`created_at`);--> statement-breakpoint
CREATE INDEX `sources_connection` ON `sources` (`connection_id`);--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `source_id` text;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `job_id` text;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `listing` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `error` text;--> statement-breakpoint
CREATE INDEX `sync_runs_source` ON `sync_runs` (`source_id`,`started_at`);