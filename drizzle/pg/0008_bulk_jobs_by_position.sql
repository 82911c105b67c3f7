DROP INDEX "bulk_job_items_pending_idx";--> statement-breakpoint
ALTER TABLE "bulk_jobs" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "bulk_jobs" ADD COLUMN "matching" integer DEFAULT 0 NOT NULL;