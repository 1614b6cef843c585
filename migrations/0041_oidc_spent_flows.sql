CREATE TABLE `oidc_spent_flows` (
	`key` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oidc_spent_flows_expires` ON `oidc_spent_flows` (`expires_at`);