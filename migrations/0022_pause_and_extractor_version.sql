ALTER TABLE `corpora` ADD `auto_onboard_paused` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `documents` ADD `extractor_version` integer;