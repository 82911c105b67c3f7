CREATE TABLE `run_counts` (
	`counter` text PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `runs_error_code_created_idx`;--> statement-breakpoint
DROP INDEX `runs_recovery_state_created_idx`;--> statement-breakpoint
CREATE INDEX `runs_recovery_time_idx` ON `runs` (`recovery_state`,`recovered_at`) WHERE recovery_state IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_error_code_created_idx` ON `runs` (`error_code`,`created_at`,`id`) WHERE error_code IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_recovery_state_created_idx` ON `runs` (`recovery_state`,`created_at`,`id`) WHERE recovery_state IS NOT NULL;--> statement-breakpoint
-- Each change to runs moves the counters it touches (see runCounts in schema/sqlite.ts).
CREATE TRIGGER `runs_counts_insert` AFTER INSERT ON `runs` BEGIN
  INSERT INTO run_counts (counter, n)
    SELECT counter, 1 FROM (
      SELECT 'status:' || NEW.status AS counter
      UNION ALL SELECT 'recovery:' || NEW.recovery_state
      UNION ALL SELECT CASE WHEN NEW.recovery_state = 'quarantined' THEN 'quarantine:' || NEW.recovery_reason END
      UNION ALL SELECT CASE WHEN NEW.error_code = 'worker_recovery_failed' THEN 'worker_recovery_failed' END
    ) WHERE counter IS NOT NULL
  ON CONFLICT (counter) DO UPDATE SET n = n + excluded.n;
END;--> statement-breakpoint
CREATE TRIGGER `runs_counts_update` AFTER UPDATE OF `status`, `recovery_state`, `recovery_reason`, `error_code` ON `runs`
  WHEN OLD.status IS NOT NEW.status OR OLD.recovery_state IS NOT NEW.recovery_state
    OR OLD.recovery_reason IS NOT NEW.recovery_reason OR OLD.error_code IS NOT NEW.error_code
BEGIN
  INSERT INTO run_counts (counter, n)
    SELECT counter, sum(d) FROM (
      SELECT 'status:' || NEW.status AS counter, 1 AS d
      UNION ALL SELECT 'recovery:' || NEW.recovery_state, 1
      UNION ALL SELECT CASE WHEN NEW.recovery_state = 'quarantined' THEN 'quarantine:' || NEW.recovery_reason END, 1
      UNION ALL SELECT CASE WHEN NEW.error_code = 'worker_recovery_failed' THEN 'worker_recovery_failed' END, 1
      UNION ALL SELECT 'status:' || OLD.status, -1
      UNION ALL SELECT 'recovery:' || OLD.recovery_state, -1
      UNION ALL SELECT CASE WHEN OLD.recovery_state = 'quarantined' THEN 'quarantine:' || OLD.recovery_reason END, -1
      UNION ALL SELECT CASE WHEN OLD.error_code = 'worker_recovery_failed' THEN 'worker_recovery_failed' END, -1
    ) WHERE counter IS NOT NULL GROUP BY counter HAVING sum(d) <> 0
  ON CONFLICT (counter) DO UPDATE SET n = n + excluded.n;
END;--> statement-breakpoint
CREATE TRIGGER `runs_counts_delete` AFTER DELETE ON `runs` BEGIN
  INSERT INTO run_counts (counter, n)
    SELECT counter, -1 FROM (
      SELECT 'status:' || OLD.status AS counter
      UNION ALL SELECT 'recovery:' || OLD.recovery_state
      UNION ALL SELECT CASE WHEN OLD.recovery_state = 'quarantined' THEN 'quarantine:' || OLD.recovery_reason END
      UNION ALL SELECT CASE WHEN OLD.error_code = 'worker_recovery_failed' THEN 'worker_recovery_failed' END
    ) WHERE counter IS NOT NULL
  ON CONFLICT (counter) DO UPDATE SET n = n + excluded.n;
END;--> statement-breakpoint
INSERT INTO `run_counts` (`counter`, `n`)
  SELECT counter, count(*) FROM (
    SELECT 'status:' || status AS counter FROM runs
    UNION ALL SELECT 'recovery:' || recovery_state FROM runs WHERE recovery_state IS NOT NULL
    UNION ALL SELECT 'quarantine:' || recovery_reason FROM runs WHERE recovery_state = 'quarantined'
    UNION ALL SELECT 'worker_recovery_failed' FROM runs WHERE error_code = 'worker_recovery_failed'
  ) WHERE counter IS NOT NULL GROUP BY counter;
