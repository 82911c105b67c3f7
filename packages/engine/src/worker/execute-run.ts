import { join } from "node:path";
import type { Run, RunSummary } from "@oah/contract";
import type { StepKind } from "@oah/core";
import type { Claim, ExecutionStore, ParkedExecution, RunOutcome } from "@oah/store";
import { abortReasonOf, sleep } from "../abort";
import type { RunJournal } from "../executors/executor";
import type { HostContext } from "../host-context";
import { outcomeOf, type Settled } from "./outcome";

/** What the execution of one run uses of its host. */
export type ExecutionHost = { store: ExecutionStore } & Pick<
  HostContext,
  | "observers"
  | "events"
  | "active"
  | "executors"
  | "hooks"
  | "workspaceRoot"
  | "logger"
  | "finishRetryMs"
  | "waitMode"
>;

/**
 * Writes of one execution, fenced by its claim; a refused write means another
 * owner: stop. Finished steps are also told to the observers (the local journal).
 */
function journalFor(host: ExecutionHost, run: Run, claim: Claim, controller: AbortController): RunJournal {
  const fenced = <T>(written: T): T => {
    if (written === false || written === null) controller.abort({ kind: "fenced" });
    return written;
  };
  const open = new Map<number, { kind: StepKind; name: string; startedAt: number }>();
  return {
    event: async (type, data) => fenced(await host.store.appendEvent(claim, type, data)),
    startStep: async (kind, name) => {
      const stepId = fenced(await host.store.startStep(claim, { kind, name }));
      if (stepId !== null) open.set(stepId, { kind, name, startedAt: Date.now() });
      return stepId;
    },
    // Best effort, and no sign of fencing: the step may have ended meanwhile.
    updateStep: (stepId, output) => host.store.updateStepOutput(claim, stepId, output),
    finishStep: async (stepId, end) => {
      const written = fenced(await host.store.finishStep(claim, stepId, end));
      const step = open.get(stepId);
      open.delete(stepId);
      if (written && step) {
        host.observers.stepFinished?.({
          run,
          kind: step.kind,
          name: step.name,
          status: end.status,
          output: end.output ?? null,
          errorCode: end.errorCode ?? null,
          durationMs: Date.now() - step.startedAt,
        });
      }
      return written;
    },
  };
}

class ExecutionAborted extends Error {
  constructor() {
    super("the execution was aborted");
  }
}

/**
 * A held wait (docs/spec.md §6, OAH_WAIT_MODE=hold): the run keeps its session lock and
 * heartbeat while it waits; the result comes by a signal, or by the heartbeat's store check.
 */
async function holdForTool(host: ExecutionHost, claim: Claim, controller: AbortController, name: string) {
  const { signal } = controller;
  if (!(await host.store.waitForTool(claim, name))) {
    controller.abort({ kind: "fenced" });
    throw new ExecutionAborted();
  }
  const active = host.active.get(claim.runId);
  for (;;) {
    if (signal.aborted) throw new ExecutionAborted();
    const arrived = new Promise<void>((resolve) => {
      if (active) active.toolResultArrived = resolve;
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    const taken = await host.store.takeToolResult(claim);
    if (taken.kind === "taken") {
      if (active) active.toolResultArrived = undefined;
      return taken.output;
    }
    if (taken.kind === "fenced") {
      controller.abort({ kind: "fenced" });
      throw new ExecutionAborted();
    }
    await arrived;
  }
}

/**
 * A parked wait (docs/spec.md §6): the executor's state is saved with the run and this execution
 * ends here; its slot and session lock are given back by the worker, while the run, unfinished,
 * keeps its session's later runs waiting. A cancel asked for before the park ends the run here.
 */
async function parkForTool(
  host: ExecutionHost,
  claim: Claim,
  controller: AbortController,
  tool: string,
  state: unknown,
): Promise<never> {
  const parked = await host.store.parkRun(claim, { tool, state });
  controller.abort({ kind: parked === "parked" ? "parked" : parked === "fenced" ? "fenced" : "cancel" });
  throw new ExecutionAborted();
}

/** The terminal write must not be lost to a short store outage: retry it for a while. */
async function finish(host: ExecutionHost, claim: Claim, outcome: RunOutcome): Promise<RunSummary | null> {
  const deadline = Date.now() + host.finishRetryMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await host.store.finishRun(claim, outcome);
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      host.logger.warn({ err: error, runId: claim.runId }, "could not record the end of a run; retrying");
      await sleep(delay);
    }
  }
}

/**
 * Executes a started run to its end and records how it ended (unless fenced out,
 * shut down or parked). `executed` is called as soon as the executor is done: the slot
 * is free then, while the hooks after the run and the terminal write go on.
 * `resumed`: the run was parked, and this execution goes on from what it saved.
 */
export async function executeRun(
  host: ExecutionHost,
  run: Run,
  claim: Claim,
  executed: () => void,
  resumed?: ParkedExecution,
): Promise<void> {
  const controller = new AbortController();
  const { signal } = controller;
  host.active.add({ claim, sessionId: run.sessionId, workspaceId: run.workspaceId, controller });
  // The run's deadline counts from its start, across parks and resumes.
  const deadline = Date.parse(run.startedAt ?? run.createdAt) + run.timeoutMs;
  const timer = setTimeout(() => controller.abort({ kind: "timeout" }), Math.max(0, deadline - Date.now()));
  const started = Date.now();
  const workspaceDir = join(host.workspaceRoot, run.workspaceId);
  const journal = journalFor(host, run, claim, controller);
  const target = { run, journal, workspaceDir, signal };
  let settled: Settled;
  try {
    const executor = host.executors.get(run.executor);
    if (!executor) throw new Error(`no executor named ${run.executor} on this host`);
    if (!resumed) await host.hooks.fire("run.started", target);
    const result = await executor.execute({
      run,
      signal,
      workspaceDir,
      journal,
      resumed: resumed ? { state: resumed.state, toolResult: resumed.toolResult } : null,
      waitForTool: (name, state) =>
        host.waitMode === "park"
          ? parkForTool(host, claim, controller, name, state)
          : holdForTool(host, claim, controller, name),
      fireHook: (event, detail) => host.hooks.fire(event, target, detail),
      runHookCommand: (name, command, timeoutMs) =>
        host.hooks.command(name, command, timeoutMs, target, "script"),
      previousOutput: () => host.store.previousOutput(run.sessionId, run.seq, run.executor),
      live: (type, data) => {
        // An aborted execution's text is no longer the run's (cancelled, or fenced out by a new owner).
        if (signal.aborted) return;
        host.events.publish({
          kind: "live",
          event: { sessionId: run.sessionId, runId: run.id, type, at: new Date().toISOString(), data },
        });
      },
    });
    settled = { ok: true, output: result.output };
  } catch (error) {
    settled = { ok: false, error };
  } finally {
    clearTimeout(timer);
    executed();
  }
  // Hooks after the run are not cut short by its cancel or timeout; a fenced run writes nothing more,
  // and a parked one has not finished.
  const abort = abortReasonOf(signal);
  if (abort?.kind !== "fenced" && abort?.kind !== "shutdown" && abort?.kind !== "parked") {
    await host.hooks
      .fire("run.finished", { ...target, signal: new AbortController().signal }, { ok: settled.ok })
      .catch((err: unknown) =>
        host.logger.warn({ err, runId: run.id }, "a run.finished hook could not be recorded"),
      );
  }
  host.active.delete(run.id);

  const outcome = outcomeOf(settled, abort, run.timeoutMs);
  if (!outcome) {
    if (abort?.kind === "parked") host.logger.debug({ runId: run.id }, "run parked until its tool result");
    else
      host.logger.warn({ runId: run.id, reason: abort?.kind }, "execution stopped without a terminal write");
    return;
  }
  try {
    const ended = await finish(host, claim, outcome);
    if (!ended) {
      host.logger.warn(
        { runId: run.id },
        "run was taken over before it ended here; its result was discarded",
      );
      return;
    }
    host.observers.runFinished?.({ run: ended, durationMs: Date.now() - started });
  } catch (error) {
    host.logger.error(
      { err: error, runId: run.id },
      "could not record the end of a run; recovery will handle it",
    );
  }
}
