import type { Run, ToolResultAccepted } from "@oah/contract";
import type { RunSignalBus, SessionQueue } from "@oah/coordination";
import { OahError } from "@oah/core";
import type { Claim, RunStore } from "@oah/store";
import type { HostContext } from "./host-context";
import type { Logger } from "./logger";

/*
 * The wait for a client's tool result (docs/spec.md §6), whole: an execution parks
 * (OAH_WAIT_MODE=park: its state saved with the run, the execution ended, the slot and the
 * session lock given back) or holds (the execution waits, keeping both); a delivered result
 * wakes it (a parked run by a resume entry at the front of its session's queue, a held one by
 * a signal, or the heartbeat's store check when the signal was missed); a parked run past its
 * deadline ends timed_out, and a parked run that ends where it waited hands its session on.
 */

/** What an execution's wait uses of its host. */
export type ToolWaitHost = Pick<HostContext, "store" | "waitMode" | "heldWaits">;

/** The execution that waits: its claim, and the controller that stops it. */
export interface WaitingExecution {
  claim: Claim;
  controller: AbortController;
}

class ExecutionAborted extends Error {
  constructor() {
    super("the execution was aborted");
  }
}

function fencedOut(controller: AbortController): never {
  controller.abort({ kind: "fenced" });
  throw new ExecutionAborted();
}

/**
 * An executor's `waitForTool`: resolves with the result where waits are held; where they are
 * parked (or the execution is aborted meanwhile), rejects, and the execution ends here.
 */
export function waitForTool(
  host: ToolWaitHost,
  execution: WaitingExecution,
  tool: string,
  state: unknown,
): Promise<unknown> {
  return host.waitMode === "park" ? park(host, execution, tool, state) : hold(host, execution, tool);
}

/**
 * A parked wait: the executor's state is saved with the run and this execution ends here; its
 * slot and session lock are given back by the worker, while the run, unfinished, keeps its
 * session's later runs waiting. A cancel asked for before the park ends the run here.
 */
async function park(
  host: ToolWaitHost,
  { claim, controller }: WaitingExecution,
  tool: string,
  state: unknown,
): Promise<never> {
  const parked = await host.store.parkRun(claim, { tool, state });
  controller.abort({ kind: parked === "parked" ? "parked" : parked === "fenced" ? "fenced" : "cancel" });
  throw new ExecutionAborted();
}

/**
 * A held wait (OAH_WAIT_MODE=hold): the run keeps its session lock and heartbeat while it
 * waits; it looks for its result again at each wake, until it finds it or is aborted.
 */
async function hold(host: ToolWaitHost, { claim, controller }: WaitingExecution, tool: string) {
  const { signal } = controller;
  if (!(await host.store.waitForTool(claim, tool))) fencedOut(controller);
  try {
    for (;;) {
      if (signal.aborted) throw new ExecutionAborted();
      // Asked for before the look, so that a wake while the store answers is not missed.
      const woken = host.heldWaits.nextWake(claim.runId, signal);
      const taken = await host.store.takeToolResult(claim);
      if (taken.kind === "taken") return taken.output;
      if (taken.kind === "fenced") fencedOut(controller);
      await woken;
    }
  } finally {
    host.heldWaits.forget(claim.runId);
  }
}

/** The held waits of this host's executions, woken when their result may have arrived. */
export class HeldWaits {
  private readonly waiting = new Map<string, () => void>();

  /** A result for the run may have arrived (its signal, or the heartbeat's check): its wait looks again. */
  wake(runId: string): void {
    this.waiting.get(runId)?.();
  }

  /** Resolves at the run's next wake, or once `signal` aborts. */
  nextWake(runId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const woken = () => {
        signal.removeEventListener("abort", woken);
        if (this.waiting.get(runId) === woken) this.waiting.delete(runId);
        resolve();
      };
      this.waiting.set(runId, woken);
      signal.addEventListener("abort", woken, { once: true });
    });
  }

  /** The run no longer waits here. */
  forget(runId: string): void {
    this.waiting.get(runId)?.();
  }
}

/** Where a result is delivered, and told: the store, then the queue (parked) or the signals (held). */
export interface DeliveryParts {
  store: Pick<RunStore, "deliverToolResult">;
  queue: SessionQueue;
  signals: RunSignalBus;
  logger: Logger;
}

/**
 * A client's result for a run in `waiting_tool`: a parked run goes to the front of its
 * session's queue, to be resumed by any host; a held one is told its result where it executes.
 * Refused (nothing written) for a run that is not waiting, or waits for another tool.
 */
export async function deliverToolResult(
  { store, queue, signals, logger }: DeliveryParts,
  runId: string,
  name: string,
  output: unknown,
): Promise<ToolResultAccepted> {
  const delivery = await store.deliverToolResult(runId, name, output);
  switch (delivery.kind) {
    case "unknown_run":
      throw new OahError("tool_result_unknown_run", `no run with id ${runId}`);
    case "not_waiting":
      throw new OahError(
        "tool_result_not_waiting",
        delivery.status === "waiting_tool"
          ? `the run already has a result for ${delivery.waitingTool}`
          : `the run is ${delivery.status}, not waiting for a tool result`,
      );
    case "wrong_name":
      throw new OahError("tool_result_wrong_name", `the run waits for ${delivery.waitingTool}, not ${name}`);
  }
  try {
    if (delivery.resume) await queue.enqueue([delivery.resume]);
    else await signals.publish({ kind: "tool_result", runId });
  } catch (error) {
    // Stored: a held run's host finds it on its heartbeat, a parked run's resume is enqueued by reconcile.
    logger.warn({ err: error, runId }, "tool result stored; it could not be announced at once");
  }
  return { runId, name, status: "accepted" };
}

/**
 * Parked runs ended where they waited, outside any execution (cancelled, or past their
 * deadline): a resume entry, if its result had arrived, leaves the queue, and each session,
 * whose later runs waited for it out of the ready set, goes on with them.
 */
export async function parkedRunsEnded(queue: SessionQueue, runs: readonly Pick<Run, "id" | "sessionId">[]) {
  for (const run of runs) await queue.remove(run.sessionId, run.id);
  if (runs.length > 0)
    await queue.readyStranded([...new Set(runs.map((r) => r.sessionId))], { blockerEnded: true });
}

const EXPIRY_BATCH = 500;

/**
 * Ends the parked runs past their deadline (startedAt + timeoutMs) `timed_out`, a batch at a
 * time: no execution holds them, so no execution's timer can. Answers how many it ended.
 */
export async function endExpiredParkedRuns(
  store: Pick<RunStore, "expireParkedRuns">,
  queue: SessionQueue,
): Promise<number> {
  let ended = 0;
  for (;;) {
    const expired = await store.expireParkedRuns(EXPIRY_BATCH);
    await parkedRunsEnded(queue, expired);
    ended += expired.length;
    if (expired.length < EXPIRY_BATCH) return ended;
  }
}
