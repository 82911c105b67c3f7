-- Events written before this migration are all committed: transaction 0 puts them first, in id
-- order, without rewriting the table (a constant default); later rows take their writer's.
ALTER TABLE "run_events" ADD COLUMN "tx" "xid8" DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "run_events" ALTER COLUMN "tx" SET DEFAULT pg_current_xact_id();
