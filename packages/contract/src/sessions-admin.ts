import { type IfBusy, JAM_KINDS, type JamKind, type RunPriority, type RunStatus } from "@oah/core";
import { z } from "zod";
import { sessionIdSchema } from "./ids";
import { wholeNumber } from "./json";

/** The session inspector (docs/spec.md §9): `GET /api/v1/sessions/{sessionId}/inspect`. */
export const inspectSessionInput = z.strictObject({ sessionId: sessionIdSchema });
export type InspectSessionInput = z.infer<typeof inspectSessionInput>;

/** Cancels the session's queued runs: every one, or those from a position (a run's `seq`) on. */
export const cancelQueuedInput = z.strictObject({
  sessionId: sessionIdSchema,
  fromPosition: wholeNumber(1).optional(),
});
export type CancelQueuedInput = z.infer<typeof cancelQueuedInput>;

/** The runs cancelled (queued ones at once; one that started meanwhile is told to stop), in order. */
export interface CancelQueuedResult {
  sessionId: string;
  cancelled: string[];
}

/** A run as the inspector lists it: its position in the session and whether the queue holds it. */
export interface InspectedRun {
  id: string;
  position: number;
  status: RunStatus;
  priority: RunPriority;
  workspaceId: string;
  workerId: string | null;
  createdAt: string;
  startedAt: string | null;
  heartbeatAt: string | null;
  endedAt: string | null;
  /** Parked in waiting_tool (docs/spec.md §6): it holds no lock. */
  parked: boolean;
  /** The queue holds it (a queued run it does not hold is in a claim's hands, or lost). */
  inQueue: boolean;
  /** What its submission did were the session busy (docs/spec.md §5). */
  ifBusy: IfBusy;
}

/** Who holds the session's lock: the run executing under its token, its worker and host (null: no run does). */
export interface SessionLockHolder {
  holder: string | null;
  workerId: string | null;
  hostId: string | null;
  /** When the holder's execution started (its claim). */
  claimedAt: string | null;
  /** The lock's time left. */
  ttlMs: number;
  /** Since it was taken or last renewed. */
  silentMs: number;
  /** The lock's fencing token: in the answers to operators and admins only. */
  token?: string;
}

export interface SessionInspection {
  sessionId: string;
  /** Its unfinished runs and its latest finished ones, in order. */
  runs: InspectedRun[];
  /** The run the session is at: its first unfinished one (executing, parked, or next to be claimed). */
  head: string | null;
  lock: SessionLockHolder | null;
  /** Its place in line while it waits to be claimed. */
  ready: { lane: RunPriority; since: string; workspaceId: string } | null;
}

/** `GET /api/v1/health/jams`: each kind of jam, how many sessions hold it, and (the first of) which. */
export interface JamClass {
  kind: JamKind;
  count: number;
  sessions: string[];
}

export interface JamReport {
  classes: JamClass[];
}

export type JamCounts = Record<JamKind, number>;

/**
 * `POST /api/v1/health/jams/{kind}/repair`: repairs the sessions that hold that jam now, or those
 * named (the sessions an operator saw listed), each only if it still holds it.
 */
export const repairJamsInput = z.strictObject({
  kind: z.enum(JAM_KINDS),
  sessionIds: z.array(sessionIdSchema).min(1).max(200).optional(),
});
export type RepairJamsInput = z.infer<typeof repairJamsInput>;

/** How many sessions were repaired, and skipped (no longer jammed, or guarded: a lock whose holder renews it). */
export interface JamRepair {
  kind: JamKind;
  repaired: number;
  skipped: number;
  sessions: { repaired: string[]; skipped: string[] };
}
