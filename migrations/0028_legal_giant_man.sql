CREATE TABLE `legal_acceptances` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`document` text NOT NULL,
	`version` text NOT NULL,
	`title` text NOT NULL,
	`sha256` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text NOT NULL,
	`address` text NOT NULL,
	`accepted_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `legal_acceptances_version` ON `legal_acceptances` (`workspace_id`,`document`,`version`);--> statement-breakpoint
CREATE INDEX `legal_acceptances_latest` ON `legal_acceptances` (`workspace_id`,`document`,`accepted_at`);