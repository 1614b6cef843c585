ALTER TABLE `corpora` ADD `n_documents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `corpora` ADD `documents_ready` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `corpora` ADD `documents_onboarding` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `corpora` ADD `documents_failed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `corpora` ADD `n_rows` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `corpora` ADD `storage_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `documents` ADD `text_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `documents` ADD `managed_by` text;