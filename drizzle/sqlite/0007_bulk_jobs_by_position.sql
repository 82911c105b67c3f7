DROP INDEX `bulk_job_items_pending_idx`;--> statement-breakpoint
ALTER TABLE `bulk_jobs` ADD `claimed_by` text;--> statement-breakpoint
ALTER TABLE `bulk_jobs` ADD `matching` integer DEFAULT 0 NOT NULL;