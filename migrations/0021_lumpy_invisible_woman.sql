CREATE TABLE `user_identities` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_identities_subject` ON `user_identities` (`issuer`,`subject`);--> statement-breakpoint
CREATE INDEX `user_identities_user` ON `user_identities` (`user_id`);