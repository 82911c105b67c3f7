-- A session belongs to the workspace of its first run (docs/spec.md §3): the sessions of earlier
-- versions take it from their first run, and a run of another workspace can no longer be written
-- (the trigger; on PostgreSQL a foreign key says the same).
ALTER TABLE `sessions` ADD `workspace_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `sessions` SET `workspace_id` = COALESCE(
  (SELECT `workspace_id` FROM `runs` WHERE `runs`.`session_id` = `sessions`.`id` ORDER BY `seq` LIMIT 1), 'default');--> statement-breakpoint
CREATE TRIGGER `runs_session_workspace` BEFORE INSERT ON `runs`
  WHEN NEW.`workspace_id` IS NOT (SELECT `workspace_id` FROM `sessions` WHERE `id` = NEW.`session_id`)
  BEGIN SELECT RAISE(ABORT, 'session_workspace_mismatch'); END;
