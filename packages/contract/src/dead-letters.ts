import type { RecoveryReason, RunErrorCode } from "@oah/core";
import { z } from "zod";
import { workspaceIdSchema } from "./ids";

/** The dead letters of one workspace, or of all (docs/spec.md §13). */
export const deadLettersInput = z.strictObject({ workspaceId: workspaceIdSchema.optional() }).default({});
export type DeadLettersInput = z.infer<typeof deadLettersInput>;

/** One of the last executions of a dead-letter group: where it ran and how it ended. */
export interface DeadLetterExecution {
  runId: string;
  workerId: string | null;
  errorMessage: string | null;
  /** When recovery quarantined it. */
  at: string;
}

/**
 * The quarantined runs of one reason, error code and workspace: what an operator requeues
 * together (through a bulk action of the group's filter) once the cause is mended.
 */
export interface DeadLetterGroup {
  reason: RecoveryReason;
  errorCode: RunErrorCode | null;
  workspaceId: string;
  count: number;
  oldestAt: string;
  newestAt: string;
  /** The group's most recently quarantined runs, newest first (at most 3). */
  lastExecutions: DeadLetterExecution[];
}

/** Largest groups first. */
export interface DeadLetters {
  groups: DeadLetterGroup[];
}
