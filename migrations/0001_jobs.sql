CREATE TABLE `jobs` (
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
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_claim` ON `jobs` (`status`,`run_at`);--> statement-breakpoint
CREATE INDEX `jobs_parent` ON `jobs` (`parent_id`);--> statement-breakpoint
CREATE INDEX `jobs_subject` ON `jobs` (`workspace_id`,`subject_id`,`created_at`);