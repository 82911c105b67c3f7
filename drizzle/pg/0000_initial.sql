CREATE TABLE "run_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"type" text NOT NULL,
	"at" bigint NOT NULL,
	"data" jsonb
);
--> statement-breakpoint
CREATE TABLE "run_steps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"started_at" bigint NOT NULL,
	"ended_at" bigint,
	"output" jsonb,
	"error_code" text,
	"error_message" text
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"queue_seq" integer NOT NULL,
	"workspace_id" text NOT NULL,
	"parent_run_id" text,
	"priority" text NOT NULL,
	"executor" text NOT NULL,
	"input" jsonb NOT NULL,
	"output" jsonb,
	"status" text NOT NULL,
	"error_code" text,
	"error_message" text,
	"created_at" bigint NOT NULL,
	"enqueued_at" bigint NOT NULL,
	"started_at" bigint,
	"heartbeat_at" bigint,
	"ended_at" bigint,
	"cancel_requested_at" bigint,
	"timeout_ms" integer NOT NULL,
	"worker_id" text,
	"claim_token" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"recovery_state" text,
	"metadata" jsonb NOT NULL,
	"idempotency_key" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"last_seq" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "run_events_run_idx" ON "run_events" USING btree ("run_id","id");--> statement-breakpoint
CREATE INDEX "run_steps_run_idx" ON "run_steps" USING btree ("run_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_session_seq_uq" ON "runs" USING btree ("session_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_session_idempotency_uq" ON "runs" USING btree ("session_id","idempotency_key") WHERE idempotency_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_session_unfinished_idx" ON "runs" USING btree ("session_id","queue_seq") WHERE status IN ('queued', 'running', 'waiting_tool');--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "runs_status_created_idx" ON "runs" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "runs_error_code_created_idx" ON "runs" USING btree ("error_code","created_at","id");--> statement-breakpoint
CREATE INDEX "runs_recovery_state_created_idx" ON "runs" USING btree ("recovery_state","created_at","id");--> statement-breakpoint
CREATE INDEX "runs_active_heartbeat_idx" ON "runs" USING btree ("status","heartbeat_at") WHERE status IN ('running', 'waiting_tool');