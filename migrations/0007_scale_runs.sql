CREATE TABLE `scale_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`corpus_id` text NOT NULL,
	`created_by` text,
	`note` text,
	`max_concurrency` integer NOT NULL,
	`queries` text NOT NULL,
	`records` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`corpus_id`) REFERENCES `corpora`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scale_runs_corpus_created` ON `scale_runs` (`corpus_id`,`created_at`,`id`);