CREATE TABLE `model_usage` (
	`workspace_id` text NOT NULL,
	`hour` integer NOT NULL,
	`calls` integer NOT NULL,
	`prompt_tokens` integer NOT NULL,
	`completion_tokens` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `hour`)
);
