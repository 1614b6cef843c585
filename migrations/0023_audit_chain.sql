ALTER TABLE `audit_events` ADD `seq` integer;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `prev_hash` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `hash` text;--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_chain` ON `audit_events` (`workspace_id`,`seq`);--> statement-breakpoint
CREATE INDEX `audit_events_action` ON `audit_events` (`workspace_id`,`action`,`seq`);;--> statement-breakpoint
-- The audit log is append-only: a chained row is never updated, and no row is deleted (the chain
-- of rows written before chaining is set once at start-up, hence the WHEN).
CREATE TRIGGER `audit_events_no_update` BEFORE UPDATE ON `audit_events` WHEN OLD.`hash` IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `audit_events_no_delete` BEFORE DELETE ON `audit_events`
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
