CREATE TABLE `rate_limit_windows` (
	`name` text NOT NULL,
	`key` text NOT NULL,
	`count` integer NOT NULL,
	`window_end` integer NOT NULL,
	PRIMARY KEY(`name`, `key`)
);
--> statement-breakpoint
CREATE INDEX `rate_limit_windows_end` ON `rate_limit_windows` (`window_end`);