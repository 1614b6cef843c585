CREATE TABLE `workspace_keys` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`key_id` text NOT NULL,
	`endpoint` text,
	`region` text,
	`enabled` integer NOT NULL,
	`local_keys` text,
	`rotated_at` integer,
	`pass` text,
	`encrypted_objects` integer DEFAULT 0 NOT NULL,
	`plaintext_objects` integer DEFAULT 0 NOT NULL,
	`counted_at` integer,
	`updated_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
