-- Jobs get an insertion order of their own, `seq`, the same on both engines (PostgreSQL's is an
-- identity); existing jobs take their rowid, which was the insertion order. SQLite cannot add a
-- NOT NULL column without a default, so the table is made again with it.
CREATE TABLE `__new_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`subject_id` text,
	`parent_id` text,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`result` text,
	`detail` text,
	`error` text,
	`units_done` real DEFAULT 0 NOT NULL,
	`units_total` real DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer DEFAULT 5 NOT NULL,
	`run_at` integer NOT NULL,
	`lease_owner` text,
	`lease_until` integer,
	`cancel_requested` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL,
	`seq` integer NOT NULL
);--> statement-breakpoint
INSERT INTO `__new_jobs` (`id`, `workspace_id`, `subject_id`, `parent_id`, `kind`, `status`, `payload`, `result`, `detail`, `error`, `units_done`, `units_total`, `attempts`, `max_attempts`, `run_at`, `lease_owner`, `lease_until`, `cancel_requested`, `created_at`, `started_at`, `finished_at`, `updated_at`, `seq`)
  SELECT `id`, `workspace_id`, `subject_id`, `parent_id`, `kind`, `status`, `payload`, `result`, `detail`, `error`, `units_done`, `units_total`, `attempts`, `max_attempts`, `run_at`, `lease_owner`, `lease_until`, `cancel_requested`, `created_at`, `started_at`, `finished_at`, `updated_at`, rowid
  FROM `jobs` ORDER BY rowid;--> statement-breakpoint
DROP TABLE `jobs`;--> statement-breakpoint
ALTER TABLE `__new_jobs` RENAME TO `jobs`;--> statement-breakpoint
CREATE INDEX `jobs_claim` ON `jobs` (`status`,`run_at`);--> statement-breakpoint
CREATE INDEX `jobs_parent` ON `jobs` (`parent_id`);--> statement-breakpoint
CREATE INDEX `jobs_subject` ON `jobs` (`workspace_id`,`subject_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_fair` ON `jobs` (`status`,`workspace_id`,`kind`,`run_at`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_seq` ON `jobs` (`seq`);
