CREATE TABLE "bulk_job_items" (
	"job_id" text NOT NULL,
	"position" integer NOT NULL,
	"run_id" text NOT NULL,
	"outcome" text,
	"message" text,
	CONSTRAINT "bulk_job_items_job_id_position_pk" PRIMARY KEY("job_id","position")
);
--> statement-breakpoint
CREATE TABLE "bulk_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"filter" jsonb NOT NULL,
	"requested_by" text NOT NULL,
	"include_cancelled" integer NOT NULL,
	"status" text NOT NULL,
	"total" integer NOT NULL,
	"done" integer NOT NULL,
	"outcomes" jsonb NOT NULL,
	"error" text,
	"started_at" bigint NOT NULL,
	"ended_at" bigint,
	"lease_owner" text,
	"lease_until" bigint
);
--> statement-breakpoint
ALTER TABLE "bulk_job_items" ADD CONSTRAINT "bulk_job_items_job_id_bulk_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."bulk_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bulk_job_items_pending_idx" ON "bulk_job_items" USING btree ("job_id","position") WHERE outcome IS NULL;--> statement-breakpoint
CREATE INDEX "bulk_job_items_outcome_idx" ON "bulk_job_items" USING btree ("job_id","outcome","position");--> statement-breakpoint
CREATE INDEX "bulk_jobs_started_idx" ON "bulk_jobs" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "bulk_jobs_running_idx" ON "bulk_jobs" USING btree ("lease_until") WHERE status = 'running';