import { IF_BUSY, RUN_PRIORITIES, type RunPriority } from "@oah/core";
import { z } from "zod";
import { agentInputSchema, promptSchema } from "./agent";
import { runIdSchema, sessionIdSchema, workspaceIdSchema } from "./ids";
import { jsonEqual, wholeNumber } from "./json";
import { scriptInputSchema } from "./script";

export const EXECUTORS = ["script", "agent"] as const;
export type ExecutorName = (typeof EXECUTORS)[number];

const DAY_MS = 86_400_000;

const submitFields = {
  sessionId: sessionIdSchema,
  priority: z.enum(RUN_PRIORITIES).default("normal"),
  timeoutMs: z.int().min(1).max(DAY_MS).optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
  /** Omitted: the session's workspace, or `default` for a new session (docs/spec.md §3). */
  workspaceId: workspaceIdSchema.optional(),
  parentRunId: runIdSchema.optional(),
  /** What to do when the session has unfinished runs (docs/spec.md §5). */
  ifBusy: z.enum(IF_BUSY).default("enqueue"),
};

const scriptSubmission = z.strictObject({
  ...submitFields,
  executor: z.literal("script"),
  input: scriptInputSchema,
});
const agentSubmission = z.strictObject({
  ...submitFields,
  executor: z.literal("agent"),
  input: agentInputSchema,
});

/** A run to submit; `executor` defaults to `script`, and `input` is validated by the executor's own schema. */
export const submitRunInput = z.preprocess(
  (value) =>
    typeof value === "object" && value !== null && !("executor" in value)
      ? { ...value, executor: "script" }
      : value,
  z.discriminatedUnion("executor", [scriptSubmission, agentSubmission], {
    error: (issue) =>
      issue.code === "invalid_union"
        ? `unknown executor; expected one of ${EXECUTORS.join(", ")}`
        : undefined,
  }),
);
export type SubmitRunInput = z.infer<typeof submitRunInput>;

/** Most runs a batch submission takes. */
export const SUBMIT_BATCH_MAX = 1_000;

/**
 * Runs submitted together, across sessions (`POST /api/v1/runs/batch`, `runs.submitMany`):
 * each is a submission with its `sessionId`, and all are validated before anything is written
 * (a malformed item refuses the whole batch, each problem naming its index, `runs.<i>…`). A
 * session's runs are numbered in the order they come. Without `partial`, the batch is written
 * whole or not at all; with `partial: true`, what the store refuses (an idempotency key reused
 * with another body; a command run where commands are off) is answered item by item.
 */
export const submitManyInput = z.strictObject({
  runs: z.array(submitRunInput).min(1).max(SUBMIT_BATCH_MAX),
  partial: z.boolean().default(false),
});
export type SubmitManyInput = z.infer<typeof submitManyInput>;

/**
 * A submission as a client writes it, the body of `POST /api/v1/sessions/{sessionId}/runs`:
 * the session is in the path, and whatever has a default may be left out (`executor` too,
 * for a script).
 */
export type SubmitRunRequest =
  | (Omit<z.input<typeof scriptSubmission>, "sessionId" | "executor"> & { executor?: "script" })
  | Omit<z.input<typeof agentSubmission>, "sessionId">;

/** What a submission asks for, as a run records it. */
export interface Submission {
  executor: ExecutorName;
  input: unknown;
  priority: RunPriority;
  timeoutMs: number;
  /** Null in a submission that names none: the session's. */
  workspaceId: string | null;
  parentRunId: string | null;
}

/**
 * Whether a submission repeated with the same idempotencyKey asks for the run the first one
 * made (same executor, input, priority, timeout, workspace and parent): only then is that run
 * its answer; another body under the same key is a conflict.
 */
export function sameSubmission(run: Submission, asked: Submission): boolean {
  return (
    run.executor === asked.executor &&
    run.priority === asked.priority &&
    run.timeoutMs === asked.timeoutMs &&
    (asked.workspaceId === null || run.workspaceId === asked.workspaceId) &&
    run.parentRunId === asked.parentRunId &&
    jsonEqual(run.input, asked.input)
  );
}

/**
 * Whether a run would execute commands on a worker host: a shell or hook step, or
 * the agent's shell tool. A host with OAH_SHELL=off refuses such runs at submission.
 */
export function runExecutesCommands(run: SubmitRunInput): boolean {
  if (run.executor === "agent") return run.input.tools.shell;
  return run.input.steps.some((step) => step.type === "shell" || step.type === "hook");
}

export const runRefInput = z.strictObject({ runId: runIdSchema });
export type RunRefInput = z.infer<typeof runRefInput>;

/** Run a run again from one of its steps (docs/spec.md §7): the step's id, as the run's steps list it. */
export const forkRunInput = z.strictObject({ runId: runIdSchema, fromStep: z.int().min(1) });
export type ForkRunInput = z.infer<typeof forkRunInput>;

/** A message to a running agent run (`POST /api/v1/runs/{runId}/messages`, `runs.message`). */
export const postMessageInput = z.strictObject({ runId: runIdSchema, content: promptSchema });
export type PostMessageInput = z.infer<typeof postMessageInput>;

export const listSessionRunsInput = z.strictObject({
  sessionId: sessionIdSchema,
  /** Position (`seq`) after which to continue, from a previous page's `nextCursor`. */
  after: wholeNumber(0).optional(),
  limit: wholeNumber(1, 1000).default(200),
});
export type ListSessionRunsInput = z.infer<typeof listSessionRunsInput>;

export const listRunEventsInput = z.strictObject({
  runId: runIdSchema,
  /** Event id after which to continue (for tailing a run). */
  after: wholeNumber(0).optional(),
  limit: wholeNumber(1, 1000).default(1000),
});
export type ListRunEventsInput = z.infer<typeof listRunEventsInput>;

export const listSessionEventsInput = z.strictObject({
  sessionId: sessionIdSchema,
  /** The id of the event after which to continue: a previous page's `nextCursor`, or a stream's last id. */
  after: wholeNumber(0).optional(),
  limit: wholeNumber(1, 1000).default(1000),
});
export type ListSessionEventsInput = z.infer<typeof listSessionEventsInput>;

/**
 * An event stream's input, HTTP and tRPC alike: resume after the event `after` (HTTP also
 * takes it as `Last-Event-ID`; tRPC's reconnects send `lastEventId`, the same id).
 */
const streamFrom = {
  after: wholeNumber(0).optional(),
  lastEventId: wholeNumber(0).optional(),
};
export const runEventsStreamInput = z.strictObject({ runId: runIdSchema, ...streamFrom });
export type RunEventsStreamInput = z.infer<typeof runEventsStreamInput>;
export const sessionEventsStreamInput = z.strictObject({ sessionId: sessionIdSchema, ...streamFrom });
export type SessionEventsStreamInput = z.infer<typeof sessionEventsStreamInput>;

/**
 * The model usage asked for (`GET /api/v1/usage`, `runs.modelUsage`): the hours from `from` to
 * `to` (ISO times; the last 24 hours by default, at most 31 days), of one workspace or all.
 */
export const modelUsageInput = z
  .strictObject({
    workspaceId: workspaceIdSchema.optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((r) => !r.from || !r.to || Date.parse(r.from) < Date.parse(r.to), {
    error: "from must be before to",
    path: ["from"],
  });
export type ModelUsageInput = z.infer<typeof modelUsageInput>;
