-- Where cited text lies (issue 34, "Sources can be read"). A PDF's pages as ranges of its text
-- sidecar, written by extraction (corpora.pages.ts): the text route answers them and a source
-- names its page. Documents extracted before have none until they are extracted again.
ALTER TABLE `documents` ADD `page_ranges` text;
--> statement-breakpoint
-- Where each passage starts in its section's text, so a source can be placed in its document
-- (engine.citations.ts). Passages indexed before have none until their section is onboarded again.
ALTER TABLE engine_passages ADD COLUMN start INTEGER;
