CREATE TABLE "run_counts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"counter" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "runs_error_code_created_idx";--> statement-breakpoint
DROP INDEX "runs_recovery_state_created_idx";--> statement-breakpoint
CREATE INDEX "runs_recovery_time_idx" ON "runs" USING btree ("recovery_state","recovered_at") WHERE recovery_state IS NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_error_code_created_idx" ON "runs" USING btree ("error_code","created_at","id") WHERE error_code IS NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_recovery_state_created_idx" ON "runs" USING btree ("recovery_state","created_at","id") WHERE recovery_state IS NOT NULL;--> statement-breakpoint
-- The counters a run with these values counts in.
CREATE FUNCTION "run_counters"(status text, recovery_state text, recovery_reason text, error_code text)
  RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
  SELECT counter FROM (VALUES
    ('status:' || status),
    ('recovery:' || recovery_state),
    (CASE WHEN recovery_state = 'quarantined' THEN 'quarantine:' || recovery_reason END),
    (CASE WHEN error_code = 'worker_recovery_failed' THEN 'worker_recovery_failed' END)
  ) AS v(counter) WHERE counter IS NOT NULL
$$;--> statement-breakpoint
-- Each statement on runs appends its net change per counter: statement-level, so that a
-- batch of transitions costs one insert, and an update that changes no counter none.
CREATE FUNCTION "run_counts_track"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO run_counts (counter, n)
      SELECT c, count(*) FROM new_rows, run_counters(status, recovery_state, recovery_reason, error_code) AS c
      GROUP BY c;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO run_counts (counter, n)
      SELECT c, -count(*) FROM old_rows, run_counters(status, recovery_state, recovery_reason, error_code) AS c
      GROUP BY c;
  ELSE
    INSERT INTO run_counts (counter, n)
      SELECT c, sum(d) FROM (
        SELECT c, 1 AS d FROM new_rows, run_counters(status, recovery_state, recovery_reason, error_code) AS c
        UNION ALL
        SELECT c, -1 AS d FROM old_rows, run_counters(status, recovery_state, recovery_reason, error_code) AS c
      ) AS changes GROUP BY c HAVING sum(d) <> 0;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "runs_counts_insert" AFTER INSERT ON "runs" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "run_counts_track"();--> statement-breakpoint
CREATE TRIGGER "runs_counts_update" AFTER UPDATE ON "runs" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "run_counts_track"();--> statement-breakpoint
CREATE TRIGGER "runs_counts_delete" AFTER DELETE ON "runs" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "run_counts_track"();--> statement-breakpoint
INSERT INTO "run_counts" ("counter", "n")
  SELECT c, count(*) FROM "runs", run_counters(status, recovery_state, recovery_reason, error_code) AS c GROUP BY c;
