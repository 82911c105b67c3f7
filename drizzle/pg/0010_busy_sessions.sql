ALTER TABLE "runs" ADD COLUMN "if_busy" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cancel_reason" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cancelled_by" text;