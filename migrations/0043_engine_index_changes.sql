CREATE TABLE `engine_index_changes` (
	`base_id` text NOT NULL,
	`generation` integer NOT NULL,
	`object_key` text NOT NULL,
	`bytes` integer NOT NULL,
	PRIMARY KEY(`base_id`, `generation`)
);
--> statement-breakpoint
ALTER TABLE `engine_publications` ADD `snapshot_generation` integer DEFAULT 0 NOT NULL;