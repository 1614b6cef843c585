CREATE TABLE `replicas` (
	`owner` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`pid` integer NOT NULL,
	`build` text NOT NULL,
	`started_at` integer NOT NULL,
	`seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `engine_publications` (
	`base_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`generation` integer NOT NULL,
	`object_key` text NOT NULL,
	`bytes` integer NOT NULL,
	`published_at` integer NOT NULL,
	`owner` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `workspaces` ADD `security_rev` integer DEFAULT 0 NOT NULL;