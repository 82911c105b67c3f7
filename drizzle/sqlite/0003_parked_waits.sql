ALTER TABLE `runs` ADD `parked_at` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `parked_state` text;--> statement-breakpoint
CREATE INDEX `runs_parked_deadline_idx` ON `runs` ((started_at + timeout_ms)) WHERE parked_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_resumable_idx` ON `runs` (`enqueued_at`) WHERE parked_at IS NOT NULL AND tool_result IS NOT NULL;