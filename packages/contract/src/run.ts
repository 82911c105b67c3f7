import type {
  BusyCancelReason,
  IfBusy,
  LiveEventType,
  RecoveryState,
  RunEventType,
  RunMetadata,
  RunPriority,
  RunStatus,
  StepKind,
  StepStatus,
} from "@oah/core";
import type { ExecutorName } from "./inputs";

/** A run as the API returns it (docs/spec.md §4). Times are ISO-8601 strings. */
export interface Run {
  id: string;
  sessionId: string;
  /** Position in the session, in submission order (1, 2, …). */
  seq: number;
  workspaceId: string;
  parentRunId: string | null;
  priority: RunPriority;
  executor: ExecutorName;
  input: unknown;
  output: unknown;
  status: RunStatus;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  startedAt: string | null;
  heartbeatAt: string | null;
  endedAt: string | null;
  cancelRequestedAt: string | null;
  timeoutMs: number;
  workerId: string | null;
  attempt: number;
  recoveryState: RecoveryState | null;
  /** While `waiting_tool`: the name of the tool whose result the run waits for. */
  waitingTool: string | null;
  /** Made by a fork (docs/spec.md §7): the run whose checkpoint before `stepId` it goes on from. */
  forkedFrom: { runId: string; stepId: number } | null;
  /** What its submission did were its session busy (docs/spec.md §5). */
  ifBusy: IfBusy;
  /**
   * Cancelled, or asked to stop at its next step boundary, for a later submission to its session
   * (that run, and how) or by an operator's interrupt (`runId` null, `interrupted`).
   */
  cancelledBy: { runId: string | null; reason: BusyCancelReason } | null;
  metadata: RunMetadata;
}

/** The model calls a workspace made in one hour, and the tokens they spent (docs/spec.md §4). */
export interface ModelUsageHour {
  workspaceId: string;
  /** The hour's start. */
  hour: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * One checkpoint of a run (docs/spec.md §7), as its page shows it: after which step (the last
 * step it covers; null before any), by which attempt, when. What it holds is not shown.
 */
export interface RunCheckpoint {
  id: number;
  stepId: number | null;
  attempt: number;
  at: string;
}

/**
 * A run without its input and output, as lists of many runs carry it (the storage list):
 * a run's own endpoint has them.
 */
export type RunSummary = Omit<Run, "input" | "output">;

export interface RunEvent {
  id: number;
  runId: string;
  type: RunEventType;
  at: string;
  data: Record<string, unknown> | null;
}

/** A live event of a stream: never stored, so without an id of its own (a model's text as it is written). */
export interface LiveRunEvent {
  runId: string;
  type: LiveEventType;
  at: string;
  data: Record<string, unknown>;
}

/** What an event stream gives: the stored events, in commit order, and live ones between them. */
export type StreamedEvent = RunEvent | LiveRunEvent;

export interface RunStep {
  id: number;
  runId: string;
  kind: StepKind;
  name: string;
  status: StepStatus;
  startedAt: string;
  endedAt: string | null;
  output: unknown;
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * The answer to a submission: the run, and whether this request made it (false: an earlier
 * request with the same idempotency key did).
 */
export interface SubmitRunResult {
  run: Run;
  created: boolean;
  /**
   * With `ifBusy: "steer"`, when the session's agent run was executing: no run was made, the
   * submission's prompt is this message to `run`, that agent run (docs/spec.md §5).
   */
  steered?: { messageId: number };
}

/** A message a running agent takes into its conversation before its next model call (docs/spec.md §5). */
export interface MessagePosted {
  runId: string;
  /** Its `run.message` event's id: its place among the run's messages. */
  messageId: number;
  /** The run's status when the message was written. */
  status: RunStatus;
}

/** One item of a batch submission, in the order given: its run, or (with `partial`) why not. */
export type SubmitManyItem = SubmitRunResult | { error: { code: string; message: string } };

export interface SubmitManyResult {
  items: SubmitManyItem[];
}

export interface CancelResult {
  runId: string;
  status: RunStatus;
}

/** The answer to a tool result the run took: its host resumes the run with it. */
export interface ToolResultAccepted {
  runId: string;
  name: string;
  status: "accepted";
}
