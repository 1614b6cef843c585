CREATE TABLE `sso_configs` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`issuer` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret` text NOT NULL,
	`enforce` integer NOT NULL,
	`default_role` text NOT NULL,
	`seat_cap` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sso_domains` (
	`domain` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `sso_configs`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_domains_workspace` ON `sso_domains` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `sso_recovery_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer,
	`used_by` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `sso_configs`(`workspace_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`used_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sso_recovery_codes_hash` ON `sso_recovery_codes` (`code_hash`);--> statement-breakpoint
CREATE INDEX `sso_recovery_codes_workspace` ON `sso_recovery_codes` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `sso_session_cutoffs` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`ended_before` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `corpus_ids` text;