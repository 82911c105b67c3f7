ALTER TABLE "runs" ADD COLUMN "parked_at" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "parked_state" jsonb;--> statement-breakpoint
CREATE INDEX "runs_parked_deadline_idx" ON "runs" USING btree ((started_at + timeout_ms)) WHERE parked_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_resumable_idx" ON "runs" USING btree ("enqueued_at") WHERE parked_at IS NOT NULL AND tool_result IS NOT NULL;