ALTER TABLE "runs" ADD COLUMN "recovery_reason" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "recovered_at" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "waiting_tool" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "tool_result" jsonb;--> statement-breakpoint
CREATE INDEX "runs_queued_enqueued_idx" ON "runs" USING btree ("enqueued_at") WHERE status = 'queued';