CREATE TABLE `billing_accounts` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`subscription_id` text,
	`status` text,
	`tier` text,
	`term` text,
	`trial_ends_at` integer,
	`renews_at` integer,
	`cancel_at_period_end` integer DEFAULT false NOT NULL,
	`pending_tier` text,
	`pending_term` text,
	`pending_at` integer,
	`schedule_id` text,
	`synced_at` integer,
	`last_event_created` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `billing_accounts_customer` ON `billing_accounts` (`customer_id`);--> statement-breakpoint
CREATE TABLE `billing_events` (
	`event_id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`workspace_id` text,
	`received_at` integer NOT NULL,
	`outcome` text NOT NULL,
	`error` text,
	`attempts` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `billing_events_workspace` ON `billing_events` (`workspace_id`,`received_at`);--> statement-breakpoint
CREATE TABLE `plan_queries` (
	`workspace_id` text NOT NULL,
	`month` text NOT NULL,
	`taken` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `month`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
