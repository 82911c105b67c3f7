ALTER TABLE `runs` ADD `if_busy` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `cancel_reason` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `cancelled_by` text;