CREATE TABLE "run_checkpoints" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"step_id" bigint,
	"attempt" integer NOT NULL,
	"at" bigint NOT NULL,
	"state" jsonb NOT NULL,
	"appended" jsonb
);
--> statement-breakpoint
ALTER TABLE "bulk_jobs" ADD COLUMN "from_start" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "run_steps" ADD COLUMN "on_interrupt" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "forked_from" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "forked_from_step" bigint;--> statement-breakpoint
ALTER TABLE "run_checkpoints" ADD CONSTRAINT "run_checkpoints_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "run_checkpoints_run_idx" ON "run_checkpoints" USING btree ("run_id","id");--> statement-breakpoint
CREATE INDEX "runs_forked_from_idx" ON "runs" USING btree ("forked_from") WHERE forked_from IS NOT NULL;