CREATE TABLE `bulk_job_items` (
	`job_id` text NOT NULL,
	`position` integer NOT NULL,
	`run_id` text NOT NULL,
	`outcome` text,
	`message` text,
	PRIMARY KEY(`job_id`, `position`),
	FOREIGN KEY (`job_id`) REFERENCES `bulk_jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bulk_job_items_pending_idx` ON `bulk_job_items` (`job_id`,`position`) WHERE outcome IS NULL;--> statement-breakpoint
CREATE INDEX `bulk_job_items_outcome_idx` ON `bulk_job_items` (`job_id`,`outcome`,`position`);--> statement-breakpoint
CREATE TABLE `bulk_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`action` text NOT NULL,
	`filter` text NOT NULL,
	`requested_by` text NOT NULL,
	`include_cancelled` integer NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`done` integer NOT NULL,
	`outcomes` text NOT NULL,
	`error` text,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`lease_owner` text,
	`lease_until` integer
);
--> statement-breakpoint
CREATE INDEX `bulk_jobs_started_idx` ON `bulk_jobs` (`started_at`);--> statement-breakpoint
CREATE INDEX `bulk_jobs_running_idx` ON `bulk_jobs` (`lease_until`) WHERE status = 'running';