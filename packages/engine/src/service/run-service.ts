import type {
  CancelResult,
  DeadLetters,
  DeadLettersInput,
  ListStorageRunsInput,
  MessagePosted,
  ModelUsageHour,
  ModelUsageInput,
  RequeueAccepted,
  RequeueItem,
  Run,
  RunCheckpoint,
  RunEvent,
  RunStep,
  StorageOverview,
  StorageRunsPage,
  SubmitManyInput,
  SubmitManyItem,
  SubmitManyResult,
  SubmitRunInput,
  SubmitRunResult,
  ToolResultAccepted,
} from "@oah/contract";
import { runExecutesCommands, sameSubmission } from "@oah/contract";
import type { RunSignalBus, SessionQueue } from "@oah/coordination";
import { type ApiErrorCode, batchRefusal, type CommandsAvailability, type IfBusy, OahError } from "@oah/core";
import { newRunId } from "@oah/core/run-id";
import {
  type CancelRequest,
  type CreatedRun,
  type RunReads,
  type SubmissionStore,
  stopsRun,
} from "@oah/store";
import type { Logger } from "../logger";
import type { EngineObservers } from "../observers";
import { deliverToolResult, parkedRunsEnded } from "../tool-wait";
import { listStorageRuns } from "./storage-runs";

const DAY_MS = 86_400_000;
const USAGE_DEFAULT_MS = DAY_MS;
const USAGE_MAX_MS = 31 * DAY_MS;

/** A run a submission made, as the queue and the runs it ended are told of it. */
type Submitted = Pick<CreatedRun, "run" | "queueEntry" | "cancels">;

export interface RunServiceOptions {
  store: SubmissionStore & RunReads;
  queue: SessionQueue;
  signals: RunSignalBus;
  logger: Logger;
  observers: Pick<EngineObservers, "runSubmitted" | "submissionWithoutRun">;
  /** Whether this deployment runs commands: runs that would execute one are refused at submission if not. */
  commands: CommandsAvailability;
  runTimeoutMs: number;
  /** The recovery budget a manual requeue is checked against. */
  maxAttempts: number;
}

/**
 * Who asks for a requeue (the caller: its token's name), the name it gave as who asks (kept
 * beside it), and whether runs whose cancel was requested start again too.
 */
export interface RequeueRequest {
  by: string;
  claimedBy?: string;
  includeCancelled?: boolean;
  /** Start over from the first step instead of going on from the last checkpoint (docs/spec.md §7). */
  fromStart?: boolean;
}

/**
 * What the API asks of the engine (docs/spec.md §12): submission, reads, cancels, tool results,
 * the operators' requeues, the storage list and overview. The store holds the
 * truth; the queue and the signals are told after it, and a failure to tell them is
 * mended by reconcile or the heartbeat, never answered as an error.
 */
export class RunService {
  constructor(private readonly options: RunServiceOptions) {}

  async submit(input: SubmitRunInput): Promise<SubmitRunResult> {
    const refused = this.refusal(input);
    if (refused) throw refused;
    const asked = this.newRun(input);
    const { run, created, queueEntry, cancels, steered } = await this.options.store
      .createRun(asked)
      .catch((error: unknown) => {
        this.countRefused(asked.ifBusy, error);
        throw error;
      });
    if (steered) {
      this.options.observers.submissionWithoutRun?.({ ifBusy: asked.ifBusy, outcome: "steered" });
      return { run, created, steered };
    }
    if (!created && !sameSubmission(run, asked)) {
      throw new OahError(
        "idempotency_key_conflict",
        `idempotencyKey ${JSON.stringify(asked.idempotencyKey)} was used in session ${run.sessionId} for ` +
          `${run.id}, with another body; use a new key for another run`,
      );
    }
    if (created) await this.enqueueSubmitted([{ run, queueEntry, cancels }]);
    return { run, created };
  }

  /**
   * Runs across sessions (docs/spec.md §12): written in one transaction (one statement on
   * PostgreSQL without idempotency keys), enqueued in one call. Whole or nothing, unless
   * `partial`: then what is refused is answered in its place and the rest is written.
   */
  async submitMany(input: SubmitManyInput): Promise<SubmitManyResult> {
    const refusals = input.runs.map((run) => this.refusal(run));
    const first = refusals.findIndex((r) => r !== null);
    if (!input.partial && first >= 0) {
      throw batchRefusal(first, refusals[first]!);
    }
    const accepted = input.runs.flatMap((run, index) =>
      refusals[index] ? [] : [{ index, asked: this.newRun(run) }],
    );
    const outcomes =
      accepted.length > 0
        ? await this.options.store.createRuns(
            accepted.map((a) => a.asked),
            { atomic: !input.partial },
          )
        : [];
    const items = refusals.map((r): SubmitManyItem | undefined =>
      r ? { error: { code: r.code, message: r.message } } : undefined,
    );
    const made: Submitted[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const { index } = accepted[i]!;
      if ("refused" in outcome) {
        this.countRefused(accepted[i]!.asked.ifBusy, outcome.refused);
        items[index] = { error: { code: outcome.refused.code, message: outcome.refused.message } };
        continue;
      }
      if ("conflict" in outcome) {
        items[index] = {
          error: {
            code: "idempotency_key_conflict",
            message: `its idempotencyKey was used in session ${outcome.conflict.sessionId} for ${outcome.conflict.id}, with another body`,
          },
        };
        continue;
      }
      items[index] = {
        run: outcome.run,
        created: outcome.created,
        ...(outcome.steered ? { steered: outcome.steered } : {}),
      };
      if (outcome.steered)
        this.options.observers.submissionWithoutRun?.({
          ifBusy: accepted[i]!.asked.ifBusy,
          outcome: "steered",
        });
      if (outcome.created) made.push(outcome);
    }
    await this.enqueueSubmitted(made);
    return { items: items as SubmitManyItem[] };
  }

  /** A submission its busy session refused, counted by its policy. */
  private countRefused(ifBusy: IfBusy, error: unknown): void {
    if (error instanceof OahError && error.code === "session_busy")
      this.options.observers.submissionWithoutRun?.({ ifBusy, outcome: "session_busy" });
  }

  /** Why a submission is refused before anything is written, if it is. */
  private refusal(input: SubmitRunInput): OahError | null {
    const { commands } = this.options;
    if (!commands.available && runExecutesCommands(input)) {
      return new OahError(
        commands.code,
        `this deployment runs no commands (shell and hook steps, the agent's shell tool): ${commands.reason}`,
      );
    }
    return null;
  }

  private newRun(input: SubmitRunInput) {
    return {
      id: newRunId(),
      sessionId: input.sessionId,
      workspaceId: input.workspaceId ?? null,
      parentRunId: input.parentRunId ?? null,
      priority: input.priority,
      executor: input.executor,
      input: input.input,
      timeoutMs: input.timeoutMs ?? this.options.runTimeoutMs,
      idempotencyKey: input.idempotencyKey ?? null,
      ifBusy: input.ifBusy,
    };
  }

  /**
   * Runs stored as queued, to their queues in one call, after the runs their submissions ended
   * have left them (ifBusy interrupt, replace); those the queue misses, the next refill picks up.
   */
  private async enqueueSubmitted(made: readonly Submitted[]): Promise<void> {
    if (made.length === 0) return;
    for (const { run, cancels } of made)
      this.options.observers.runSubmitted?.({
        run,
        stopped: cancels.filter(stopsRun).length,
      });
    await this.tellCancels(made.flatMap((m) => m.cancels));
    try {
      await this.options.queue.enqueue(made.map((m) => m.queueEntry));
    } catch (error) {
      this.options.logger.error(
        { err: error, runs: made.map((m) => m.run.id) },
        "could not enqueue stored runs",
      );
    }
  }

  /**
   * The store has recorded these cancels: the queue and the executing hosts are told. If they
   * cannot be told now, a worker that claims a run finds it cancelled, and the executing host
   * finds the request on its heartbeat.
   */
  private async tellCancels(requests: readonly CancelRequest[]): Promise<void> {
    const { queue, signals } = this.options;
    for (const request of requests.filter(stopsRun)) {
      const { run } = request;
      try {
        if (request.kind === "cancelled" && request.parked) await parkedRunsEnded(queue, [run]);
        else if (request.kind === "cancelled") await queue.remove(run.sessionId, run.id);
        // A later submission's stop waits for the run's next step boundary; a plain cancel does not.
        else await signals.publish({ kind: run.cancelledBy ? "interrupt" : "cancel", runId: run.id });
      } catch (error) {
        this.options.logger.warn(
          { err: error, runId: run.id },
          "cancel recorded; the queue could not be told at once",
        );
      }
    }
  }

  /**
   * The model calls and tokens of each hour, by workspace (docs/spec.md §4): the last 24 hours
   * unless the input says which, 31 days at most.
   */
  async modelUsage(input: ModelUsageInput): Promise<{ items: ModelUsageHour[] }> {
    const to = input.to ? Date.parse(input.to) : Date.now();
    const from = input.from ? Date.parse(input.from) : to - USAGE_DEFAULT_MS;
    if (to - from > USAGE_MAX_MS)
      throw new OahError("invalid_request", "a usage range covers 31 days at most: narrow from and to");
    const workspaceIds = input.workspaceId ? [input.workspaceId] : undefined;
    return {
      items: await this.options.store.modelUsage({ from, to, ...(workspaceIds ? { workspaceIds } : {}) }),
    };
  }

  async getRun(runId: string): Promise<Run> {
    const run = await this.options.store.getRun(runId);
    if (!run) throw new OahError("run_not_found", `no run with id ${runId}`);
    return run;
  }

  async listSessionRuns(sessionId: string, page: { after?: number; limit: number }): Promise<Run[]> {
    return this.options.store.listSessionRuns(sessionId, page);
  }

  async listRunEvents(runId: string, page: { after?: number; limit: number }): Promise<RunEvent[]> {
    const events = await this.options.store.listRunEvents(runId, page);
    if (events.length === 0) await this.getRun(runId);
    return events;
  }

  /**
   * Runs again from a step (docs/spec.md §7): a new run at the tail of the run's session that
   * goes on from the checkpoint before `fromStep`; refused as a submission would be where the
   * run's commands cannot run.
   */
  async fork(runId: string, fromStep: number): Promise<SubmitRunResult> {
    const source = await this.getRun(runId);
    const refused = this.refusal(source as unknown as SubmitRunInput);
    if (refused) throw refused;
    const made = await this.options.store.forkRun({ id: newRunId(), runId, fromStep });
    await this.enqueueSubmitted([made]);
    return { run: made.run, created: true };
  }

  /** A run's checkpoints, oldest first: after which step, by which attempt. */
  async listCheckpoints(runId: string): Promise<RunCheckpoint[]> {
    const marks = await this.options.store.listCheckpoints(runId);
    if (marks.length === 0) await this.getRun(runId);
    return marks;
  }

  async listRunSteps(runId: string): Promise<RunStep[]> {
    const steps = await this.options.store.listRunSteps(runId);
    if (steps.length === 0) await this.getRun(runId);
    return steps;
  }

  /** A queued or parked run is cancelled at once; an executing one is aborted wherever it executes. */
  async cancel(runId: string): Promise<CancelResult> {
    const request = await this.options.store.requestCancel(runId);
    if (request.kind === "missing") throw new OahError("run_not_found", `no run with id ${runId}`);
    await this.tellCancels([request]);
    return { runId, status: request.run.status };
  }

  /**
   * An operator's interrupt (docs/spec.md §5): as a later submission's, with no run of its own. A
   * queued or parked run ends at once; an executing one stops at its next step boundary.
   */
  async interrupt(runId: string): Promise<CancelResult> {
    const request = await this.options.store.requestCancel(runId, { reason: "interrupted", by: null });
    if (request.kind === "missing") throw new OahError("run_not_found", `no run with id ${runId}`);
    await this.tellCancels([request]);
    return { runId, status: request.run.status };
  }

  /**
   * A message to an agent run that has not ended (docs/spec.md §5, *Steering*): stored, and taken
   * by the agent before its next model call, wherever it executes; nothing to tell anyone.
   */
  async message(runId: string, content: string): Promise<MessagePosted> {
    const { run, messageId } = await this.options.store.postMessage(runId, content);
    return { runId, messageId, status: run.status };
  }

  /** A client's result for a run in `waiting_tool` (see tool-wait.ts). */
  submitToolResult(runId: string, name: string, output: unknown): Promise<ToolResultAccepted> {
    return deliverToolResult(this.options, runId, name, output);
  }

  /** An operator's requeue of one run; a refusal is an error with its code (409, or 404). */
  async requeue(runId: string, request: RequeueRequest): Promise<RequeueAccepted> {
    const [item] = await this.requeueMany([runId], request);
    if (item!.status === "error") throw new OahError(item!.errorCode as ApiErrorCode, item!.errorMessage);
    return item!;
  }

  /** An operator's requeue of many runs, answered item by item (a repeated id is answered once). */
  async requeueMany(runIds: readonly string[], request: RequeueRequest): Promise<RequeueItem[]> {
    const { store, queue, logger, maxAttempts } = this.options;
    const outcomes = await store.requeueRuns([...new Set(runIds)], {
      by: request.by,
      claimedBy: request.claimedBy ?? null,
      maxAttempts,
      includeCancelled: request.includeCancelled ?? false,
      fromStart: request.fromStart ?? false,
    });
    const accepted = outcomes.flatMap((o) => (o.ok ? [o.queueEntry] : []));
    try {
      await queue.enqueue(accepted);
    } catch (error) {
      // Stored as queued: the next reconcile enqueues them.
      logger.error({ err: error, runs: accepted.length }, "requeued runs could not be enqueued yet");
    }
    return outcomes.map(
      (o): RequeueItem =>
        o.ok
          ? { runId: o.runId, status: "queued", previousStatus: o.previousStatus, source: "manual_requeue" }
          : { runId: o.runId, status: "error", errorCode: o.code, errorMessage: o.message },
    );
  }

  listStorageRuns(input: ListStorageRunsInput): Promise<StorageRunsPage> {
    return listStorageRuns(this.options.store, input);
  }

  overview(): Promise<StorageOverview> {
    return this.options.store.overview();
  }

  deadLetters(input: DeadLettersInput): Promise<DeadLetters> {
    return this.options.store.deadLetters(input.workspaceId);
  }
}
