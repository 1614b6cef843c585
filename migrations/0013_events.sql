CREATE TABLE `domain_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`delivered_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`run_at` integer NOT NULL,
	`last_error` text,
	`lease_owner` text,
	`lease_until` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domain_events_id_unique` ON `domain_events` (`id`);--> statement-breakpoint
CREATE INDEX `domain_events_pending` ON `domain_events` (`delivered_at`,`workspace_id`,`seq`);--> statement-breakpoint
CREATE INDEX `domain_events_lease` ON `domain_events` (`lease_owner`);--> statement-breakpoint
CREATE TABLE `event_deliveries` (
	`event_id` text NOT NULL,
	`subscriber` text NOT NULL,
	`delivered_at` integer NOT NULL,
	PRIMARY KEY(`event_id`, `subscriber`)
);
