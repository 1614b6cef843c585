ALTER TABLE `corpora` ADD `cart_status` text DEFAULT 'none' NOT NULL;
--> statement-breakpoint
-- Bases onboarded before cartridges were built in the background have all of theirs.
UPDATE `corpora` SET `cart_status` = 'ready' WHERE `documents_ready` > 0;
