CREATE TABLE `run_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`data` text,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_events_run_idx` ON `run_events` (`run_id`,`id`);--> statement-breakpoint
CREATE TABLE `run_steps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`output` text,
	`error_code` text,
	`error_message` text,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_steps_run_idx` ON `run_steps` (`run_id`,`id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`queue_seq` integer NOT NULL,
	`workspace_id` text NOT NULL,
	`parent_run_id` text,
	`priority` text NOT NULL,
	`executor` text NOT NULL,
	`input` text NOT NULL,
	`output` text,
	`status` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`created_at` integer NOT NULL,
	`enqueued_at` integer NOT NULL,
	`started_at` integer,
	`heartbeat_at` integer,
	`ended_at` integer,
	`cancel_requested_at` integer,
	`timeout_ms` integer NOT NULL,
	`worker_id` text,
	`claim_token` text,
	`attempt` integer DEFAULT 0 NOT NULL,
	`recovery_state` text,
	`metadata` text NOT NULL,
	`idempotency_key` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_session_seq_uq` ON `runs` (`session_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `runs_session_idempotency_uq` ON `runs` (`session_id`,`idempotency_key`) WHERE idempotency_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_session_unfinished_idx` ON `runs` (`session_id`,`queue_seq`) WHERE status IN ('queued', 'running', 'waiting_tool');--> statement-breakpoint
CREATE INDEX `runs_created_idx` ON `runs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_status_created_idx` ON `runs` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_error_code_created_idx` ON `runs` (`error_code`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_recovery_state_created_idx` ON `runs` (`recovery_state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_active_heartbeat_idx` ON `runs` (`status`,`heartbeat_at`) WHERE status IN ('running', 'waiting_tool');--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
