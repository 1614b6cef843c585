CREATE TABLE `answer_feedback` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`corpus_id` text NOT NULL,
	`user_id` text,
	`key_id` text,
	`rating` text NOT NULL,
	`question` text,
	`answer` text,
	`comment` text,
	`source_ids` text DEFAULT '[]' NOT NULL,
	`strategy` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`corpus_id`) REFERENCES `corpora`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `answer_feedback_corpus` ON `answer_feedback` (`corpus_id`,`created_at`);