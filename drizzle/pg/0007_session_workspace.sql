-- A session belongs to the workspace of its first run (docs/spec.md §3): the sessions of earlier
-- versions take it from their first run, and a run of another workspace can no longer be written.
ALTER TABLE "sessions" ADD COLUMN "workspace_id" text;--> statement-breakpoint
UPDATE "sessions" SET "workspace_id" = first.workspace_id
  FROM (SELECT DISTINCT ON (session_id) session_id, workspace_id FROM "runs" ORDER BY session_id, seq) AS first
  WHERE first.session_id = "sessions"."id";--> statement-breakpoint
UPDATE "sessions" SET "workspace_id" = 'default' WHERE "workspace_id" IS NULL;--> statement-breakpoint
ALTER TABLE "sessions" ALTER COLUMN "workspace_id" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_id_workspace_uq" ON "sessions" USING btree ("id","workspace_id");--> statement-breakpoint
ALTER TABLE "runs" DROP CONSTRAINT "runs_session_id_sessions_id_fk";--> statement-breakpoint
-- NOT VALID: runs written before this version into another workspace than their session's stay
-- readable; every run written from now on is checked.
ALTER TABLE "runs" ADD CONSTRAINT "runs_session_workspace_fk" FOREIGN KEY ("session_id","workspace_id") REFERENCES "public"."sessions"("id","workspace_id") ON DELETE no action ON UPDATE no action NOT VALID;
