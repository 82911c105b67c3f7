CREATE TABLE `run_checkpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`step_id` integer,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`state` text NOT NULL,
	`appended` text,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_checkpoints_run_idx` ON `run_checkpoints` (`run_id`,`id`);--> statement-breakpoint
ALTER TABLE `bulk_jobs` ADD `from_start` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `run_steps` ADD `on_interrupt` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `forked_from` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `forked_from_step` integer;--> statement-breakpoint
CREATE INDEX `runs_forked_from_idx` ON `runs` (`forked_from`) WHERE forked_from IS NOT NULL;