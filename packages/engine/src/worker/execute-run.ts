import { join } from "node:path";
import type { Run } from "@oah/contract";
import type { SessionClaim } from "@oah/coordination";
import type { ResumeRecord, StepKind } from "@oah/core";
import type { Claim, ParkedExecution } from "@oah/store";
import { abortReasonOf } from "../abort";
import type { ExecutionContext, Resumed, RunJournal } from "../executors/executor";
import type { HookTarget } from "../hooks/hook-runner";
import type { HostContext } from "../host-context";
import { type ToolWaitHost, waitForTool } from "../tool-wait";
import type { Settled } from "./outcome";
import { endRun, type RunEndHost } from "./run-end";
import { RunInterrupt } from "./run-interrupt";

/** What the execution of one run uses of its host: what its executor is given, its wait, its end. */
export type ExecutionHost = ToolWaitHost &
  RunEndHost &
  Pick<
    HostContext,
    "clock" | "observers" | "events" | "executors" | "workspaceRoot" | "checkpoints" | "interruptGraceMs"
  >;

/**
 * Writes of one execution, fenced by its claim; a refused write means another
 * owner: stop. Finished steps are also told to the observers (the local journal).
 */
function journalFor(
  host: ExecutionHost,
  run: Run,
  claim: Claim,
  controller: AbortController,
  interrupt: RunInterrupt,
): RunJournal {
  const fenced = <T>(written: T): T => {
    if (written === false || written === null) controller.abort({ kind: "fenced" });
    return written;
  };
  const open = new Map<number, { kind: StepKind; name: string; startedAt: number }>();
  // A checkpoint of its own ends a step that has no row (a sleep, an output): a boundary too.
  const interruptedAfter = (written: boolean): boolean => {
    if (written) interrupt.boundary();
    return written;
  };
  return {
    event: async (type, data) => fenced(await host.store.appendEvent(claim, type, data)),
    startStep: async (kind, name, options) => {
      interrupt.boundary();
      const stepId = fenced(await host.store.startStep(claim, { kind, name, ...options }));
      if (stepId !== null) open.set(stepId, { kind, name, startedAt: host.clock.now() });
      return stepId;
    },
    // Best effort, and no sign of fencing: the step may have ended meanwhile.
    updateStep: (stepId, output) => host.store.updateStepOutput(claim, stepId, output),
    // A step an abort cut short (a cancel, a drain, a timeout) is not done: no checkpoint says it
    // is. With checkpoints off (OAH_CHECKPOINTS=off) none is written, as before durable runs.
    checkpoint: async (checkpoint) => {
      if (controller.signal.aborted) return false;
      if (!host.checkpoints) return interruptedAfter(true);
      try {
        return interruptedAfter(fenced(await host.store.saveCheckpoint(claim, checkpoint)));
      } catch (error) {
        // One that adds nothing to the run's log (a script's, after a sleep or an output) may be
        // lost to a store outage: the next checkpoint holds all it held, and a later attempt only
        // goes on from an earlier one. One that adds to the log may not: the log would miss it.
        if (checkpoint.appended?.length) throw error;
        host.logger.warn(
          { err: error, runId: run.id },
          "a checkpoint could not be saved; going on without it",
        );
        return interruptedAfter(true);
      }
    },
    finishStep: async (stepId, end, checkpoint) => {
      // A step a drain cut short stays open, as a crash leaves it: the drain's recovery ends it,
      // and the next attempt does it again, or, a command with onInterrupt: fail, does not.
      if (abortReasonOf(controller.signal)?.kind === "shutdown") return true;
      const done = controller.signal.aborted || !host.checkpoints ? undefined : checkpoint;
      const written = fenced(await host.store.finishStep(claim, stepId, end, done));
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
          durationMs: host.clock.now() - step.startedAt,
        });
      }
      return written;
    },
  };
}

/** What an executor is given: the run, its fenced journal, its hooks, its wait for a tool, its live events. */
function contextOf(
  host: ExecutionHost,
  target: HookTarget,
  execution: { claim: Claim; controller: AbortController; interrupt: RunInterrupt },
  resumed: Resumed | null,
): ExecutionContext {
  const { claim, controller, interrupt } = execution;
  const { run, journal, workspaceDir, signal } = target;
  return {
    run,
    signal,
    workspaceDir,
    journal,
    resumed,
    waitForTool: (name, state) =>
      interrupt.waitBetweenSteps(() => waitForTool(host, { claim, controller }, name, state)),
    fireHook: (event, detail) => host.hooks.fire(event, target, detail),
    runHookCommand: (name, command, timeoutMs, interrupt) =>
      host.hooks.command(name, command, timeoutMs, target, "script", {}, interrupt),
    // A fork's turn is its source's: it goes on from what the source went on from, whatever ran since.
    previousRun: async () => {
      const source = run.forkedFrom ? await host.store.getRun(run.forkedFrom.runId) : null;
      return host.store.previousRun(run.sessionId, source?.seq ?? run.seq, run.executor);
    },
    carriedRun: (runId) => host.store.carriedRun(run.sessionId, runId),
    messages: (after) => host.store.pendingMessages(run.id, after),
    live: (type, data) => {
      // An aborted execution's text is no longer the run's (cancelled, or fenced out by a new owner).
      if (signal.aborted) return;
      host.events.publish({
        kind: "live",
        event: {
          sessionId: run.sessionId,
          runId: run.id,
          type,
          at: new Date(host.clock.now()).toISOString(),
          data,
        },
      });
    },
  };
}

const parkResume = ({ state, toolResult }: ParkedExecution): Resumed => ({ from: "park", state, toolResult });

/**
 * Where an attempt after the first goes on from (docs/spec.md §7): the last checkpoint of the
 * run, told as `run.resumed` with what it does not do again and the step it does again; null
 * when the run has none (it starts from its first step). A first attempt has none to read, but
 * a fork's, whose checkpoints are its source's. With checkpoints off, every attempt starts anew.
 */
async function checkpointResume(
  host: ExecutionHost,
  run: Run,
  claim: Claim,
  controller: AbortController,
): Promise<Resumed | null> {
  if (!host.checkpoints || (run.attempt <= 1 && run.forkedFrom === null)) return null;
  const resumption = await host.store.readResumption(run.id);
  if (!resumption) return null;
  const { stepId, interrupted, avoided } = resumption;
  const record: ResumeRecord = {
    attempt: run.attempt,
    fromStep: stepId,
    avoided,
    rerun: interrupted ? { stepId: interrupted.stepId, kind: interrupted.kind } : null,
    at: new Date(host.clock.now()).toISOString(),
  };
  const recorded = await host.store.recordResume(claim, record, {
    fromCheckpoint: true,
    fromStep: stepId,
    attempt: run.attempt,
    avoided,
    ...(interrupted ? { interrupted } : {}),
    ...(run.forkedFrom ? { forkedFrom: run.forkedFrom } : {}),
  });
  if (!recorded) {
    controller.abort({ kind: "fenced" });
    return null;
  }
  host.observers.runResumed?.({ run, avoided, rerun: interrupted?.kind ?? null });
  return { from: "checkpoint", state: resumption.state, log: resumption.log, interrupted };
}

/**
 * Executes a started run until its executor is done, then hands its end over (run-end.ts) and
 * resolves: the slot is free, while the hooks after the run, its terminal write (unless fenced
 * out, shut down or parked) and the release of its session go on.
 * `resumed`: the run was parked, and this execution goes on from what it saved.
 */
export async function executeRun(
  host: ExecutionHost,
  run: Run,
  sessionClaim: SessionClaim,
  resumed?: ParkedExecution,
): Promise<void> {
  const controller = new AbortController();
  const claim: Claim = { runId: sessionClaim.entry.runId, token: sessionClaim.token };
  const interrupt = new RunInterrupt(controller, host.clock, host.interruptGraceMs);
  host.active.add({ claim, sessionId: run.sessionId, workspaceId: run.workspaceId, controller, interrupt });
  // The run's deadline counts from its start, across parks and resumes.
  const deadline = Date.parse(run.startedAt ?? run.createdAt) + run.timeoutMs;
  const startedAt = host.clock.now();
  const timer = host.clock.setTimeout(
    () => controller.abort({ kind: "timeout" }),
    Math.max(0, deadline - startedAt),
  );
  const workspaceDir = join(host.workspaceRoot, run.workspaceId);
  const journal = journalFor(host, run, claim, controller, interrupt);
  const hookTarget: HookTarget = { run, journal, workspaceDir, signal: controller.signal };
  let settled: Settled;
  try {
    const executor = host.executors.get(run.executor);
    if (!executor) throw new Error(`no executor named ${run.executor} on this host`);
    if (!resumed) await host.hooks.fire("run.started", hookTarget);
    const from = resumed ? parkResume(resumed) : await checkpointResume(host, run, claim, controller);
    const result = await executor.execute(
      contextOf(host, hookTarget, { claim, controller, interrupt }, from),
    );
    settled = { ok: true, output: result.output };
  } catch (error) {
    settled = { ok: false, error };
  } finally {
    timer.cancel();
    interrupt.dispose();
  }
  const abort = abortReasonOf(controller.signal);
  endRun(host, { run, claim: sessionClaim, settled, abort, hookTarget, startedAt });
}
