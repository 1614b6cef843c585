CREATE TABLE `corpora` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`source_type` text DEFAULT 'upload' NOT NULL,
	`status` text DEFAULT 'new' NOT NULL,
	`description` text,
	`last_synced_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `corpora_workspace` ON `corpora` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`corpus_id` text NOT NULL,
	`parent_id` text,
	`path` text NOT NULL,
	`size` integer DEFAULT 0 NOT NULL,
	`content_type` text,
	`sha256` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`error` text,
	`source` text DEFAULT 'upload' NOT NULL,
	`section_index` integer,
	`section_title` text,
	`section_count` integer DEFAULT 1 NOT NULL,
	`cart_id` text,
	`raw_key` text,
	`text_key` text,
	`text_chars` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`corpus_id`) REFERENCES `corpora`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `documents_corpus_path` ON `documents` (`corpus_id`,`path`) WHERE "documents"."parent_id" IS NULL;--> statement-breakpoint
CREATE INDEX `documents_parent` ON `documents` (`parent_id`);--> statement-breakpoint
CREATE INDEX `documents_corpus_created` ON `documents` (`corpus_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `documents_cart` ON `documents` (`cart_id`);