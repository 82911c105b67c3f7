import { BULK_ACTIONS, type BulkAction, type BulkJobStatus } from "@oah/core";
import { z } from "zod";
import { type StorageRunFilters, storageFilterInput } from "./admin";
import { bulkJobIdSchema } from "./ids";
import { wholeNumber } from "./json";

/**
 * A bulk action by filter (docs/spec.md §9): requeue or cancel every run the Storage filter
 * matches. `dryRun` answers what it would do; otherwise a job of the store's does it.
 */
export const bulkActionInput = z.strictObject({
  action: z.enum(BULK_ACTIONS),
  filter: storageFilterInput,
  dryRun: z.boolean().default(false),
  /**
   * Who the caller says asks: kept beside the caller (`claimedBy`, with each requeue too), never
   * instead of it; the job and its requeues name the caller's token as who asked.
   */
  requestedBy: z.string().trim().min(1).max(128).optional(),
  /** Requeue runs whose cancel was requested too (as a single requeue's `includeCancelled`). */
  includeCancelled: z.boolean().default(false),
  /** A requeue's runs start over from their first step (as a single requeue's `fromStart`). */
  fromStart: z.boolean().default(false),
});
export type BulkActionInput = z.infer<typeof bulkActionInput>;

/** How many runs each outcome would have (`requeued`, a refusal's code, …), with a few of each. */
export interface BulkDryRun {
  matched: number;
  outcomes: Record<string, number>;
  examples: Record<string, string[]>;
}

export interface BulkJob {
  id: string;
  action: BulkAction;
  status: BulkJobStatus;
  /** The runs the filter matched when the job started: the job acts on those, whatever comes after. */
  total: number;
  /** How many of them it has acted on. */
  done: number;
  outcomes: Record<string, number>;
  filter: StorageRunFilters;
  /** Who started it: the caller's token's name (`local` without tokens). */
  requestedBy: string;
  /** The name the caller gave as who asks (its `requestedBy`), if any: its word, beside the fact. */
  claimedBy: string | null;
  startedAt: string;
  endedAt: string | null;
  /** Why a failed job failed. */
  error: string | null;
}

export const bulkJobRefInput = z.strictObject({ id: bulkJobIdSchema });
export type BulkJobRefInput = z.infer<typeof bulkJobRefInput>;

export const listBulkJobsInput = z.strictObject({ limit: wholeNumber(1, 100).default(20) });
export type ListBulkJobsInput = z.infer<typeof listBulkJobsInput>;

export const listBulkJobItemsInput = z.strictObject({
  id: bulkJobIdSchema,
  outcome: z.string().trim().min(1).max(64).optional(),
  limit: wholeNumber(1, 500).default(100),
  /** Opaque: the `nextCursor` of the previous page. */
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, { error: "must be the nextCursor of a page of the job's items" })
    .optional(),
});
export type ListBulkJobItemsInput = z.infer<typeof listBulkJobItemsInput>;

/** One run of a job: its place in the job, and what the job did to it (null: not yet). */
export interface BulkJobItem {
  position: number;
  runId: string;
  outcome: string | null;
  message: string | null;
}

export interface BulkJobItemsPage {
  items: BulkJobItem[];
  nextCursor: string | null;
}
