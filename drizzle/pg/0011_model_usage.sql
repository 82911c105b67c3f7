CREATE TABLE "model_usage" (
	"workspace_id" text NOT NULL,
	"hour" bigint NOT NULL,
	"calls" integer NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	CONSTRAINT "model_usage_workspace_id_hour_pk" PRIMARY KEY("workspace_id","hour")
);
