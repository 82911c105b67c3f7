ALTER TABLE `runs` ADD `recovery_reason` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `recovered_at` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `waiting_tool` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `tool_result` text;--> statement-breakpoint
CREATE INDEX `runs_queued_enqueued_idx` ON `runs` (`enqueued_at`) WHERE status = 'queued';