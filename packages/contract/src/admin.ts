import { RECOVERY_REASONS, RECOVERY_STATES, RUN_ERROR_CODES, RUN_STATUSES, type RunStatus } from "@oah/core";
import { z } from "zod";
import { runIdSchema, sessionIdSchema, workspaceIdSchema } from "./ids";
import { jsonValue, wholeNumber } from "./json";
import type { RunSummary } from "./run";

/** A multi-valued filter: an array (tRPC), or one comma-separated string (an HTTP query parameter). */
function listOf<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (value) => (typeof value === "string" ? value.split(",").filter((v) => v !== "") : value),
    z.array(item).min(1).max(32),
  );
}

const isoTime = z.iso.datetime({
  offset: true,
  error: "must be an ISO-8601 date-time, e.g. 2026-01-31T12:00:00Z",
});

export const listStorageRunsInput = z.strictObject({
  status: listOf(z.enum(RUN_STATUSES)).optional(),
  errorCode: listOf(z.enum(RUN_ERROR_CODES)).optional(),
  recoveryState: listOf(z.enum(RECOVERY_STATES)).optional(),
  /** The reason of the last recovery decision: with `quarantined`, a dead-letter group's runs. */
  recoveryReason: listOf(z.enum(RECOVERY_REASONS)).optional(),
  sessionId: sessionIdSchema.optional(),
  workspaceId: workspaceIdSchema.optional(),
  runId: runIdSchema.optional(),
  /** The runs forked from this one (docs/spec.md §7), the other end of their `forkedFrom`. */
  forkedFrom: runIdSchema.optional(),
  createdFrom: isoTime.optional(),
  createdTo: isoTime.optional(),
  limit: wholeNumber(1, 200).default(50),
  /** Opaque: the `nextCursor` of the previous page, for the same filters. */
  cursor: z.string().min(1).max(512).optional(),
});
export type ListStorageRunsInput = z.infer<typeof listStorageRunsInput>;

/** The filters a page was listed with, as the API understood them. */
export type StorageRunFilters = Omit<ListStorageRunsInput, "limit" | "cursor">;

export interface StorageRunsPage {
  items: RunSummary[];
  nextCursor: string | null;
  appliedFilters: StorageRunFilters;
}

export interface StorageOverview {
  statusCounts: Record<RunStatus, number>;
  recovery: {
    trackedRuns: number;
    quarantinedRuns: number;
    requeuedRuns: number;
    failedRecoveryRuns: number;
    workerRecoveryFailures: number;
    oldestQuarantinedAt: string | null;
    newestQuarantinedAt: string | null;
    newestRecoveredAt: string | null;
    topQuarantineReasons: { reason: string; count: number }[];
  };
}

/** The filters of the Storage list: what a bulk action acts on. */
export const storageFilterInput = listStorageRunsInput.omit({ limit: true, cursor: true });

/**
 * Who the caller says asks: kept beside the caller as `lastManualRequeueClaimedBy` and the
 * events' `claimedBy`, never instead of it (the record names the caller's token).
 */
const requestedBy = z.string().trim().min(1).max(128);

/** A run someone asked to cancel starts again only when the operator says so: `includeCancelled`. */
const includeCancelled = z.boolean().default(false);

/**
 * A requeued run goes on from its last checkpoint (docs/spec.md §7); `fromStart`, it starts over
 * from its first step, its checkpoints dropped.
 */
const fromStart = z.boolean().default(false);

export const requeueRunInput = z.strictObject({
  runId: runIdSchema,
  requestedBy: requestedBy.optional(),
  includeCancelled,
  fromStart,
});
export type RequeueRunInput = z.infer<typeof requeueRunInput>;

export const requeueManyInput = z.strictObject({
  runIds: z.array(runIdSchema).min(1).max(200),
  requestedBy: requestedBy.optional(),
  includeCancelled,
  fromStart,
});
export type RequeueManyInput = z.infer<typeof requeueManyInput>;

export interface RequeueAccepted {
  runId: string;
  status: "queued";
  previousStatus: RunStatus;
  source: "manual_requeue";
}

export interface RequeueRefused {
  runId: string;
  status: "error";
  errorCode: string;
  errorMessage: string;
}

export type RequeueItem = RequeueAccepted | RequeueRefused;

export const submitToolResultInput = z.strictObject({
  runId: runIdSchema,
  name: z.string().min(1).max(128),
  output: jsonValue,
});
export type SubmitToolResultInput = z.infer<typeof submitToolResultInput>;
