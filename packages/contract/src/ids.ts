import {
  BULK_JOB_ID_PATTERN,
  HOST_ID_PATTERN,
  ROLLOUT_ID_PATTERN,
  RUN_ID_PATTERN,
  SESSION_ID_PATTERN,
  WORKSPACE_ID_PATTERN,
} from "@oah/core";
import { z } from "zod";

export const sessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, { error: "session id must be 1-128 characters of A-Z a-z 0-9 . _ : -" });

export const workspaceIdSchema = z.string().regex(WORKSPACE_ID_PATTERN, {
  error: "workspace id must be 1-64 characters of A-Z a-z 0-9 . _ - and must not start with a dot",
});

export const runIdSchema = z.string().regex(RUN_ID_PATTERN, {
  error: "run id must look like run_ followed by 26 ULID characters",
});

export const hostIdSchema = z
  .string()
  .regex(HOST_ID_PATTERN, { error: "host id must be 1-128 characters of A-Z a-z 0-9 . _ : -" });

export const bulkJobIdSchema = z.string().regex(BULK_JOB_ID_PATTERN, {
  error: "bulk job id must look like bulk_ followed by 26 ULID characters",
});

export const rolloutIdSchema = z.string().regex(ROLLOUT_ID_PATTERN, {
  error: "rollout id must look like rollout_ followed by 26 ULID characters",
});
