import { join } from "node:path";
import type { Run } from "@oah/contract";
import type { SessionClaim } from "@oah/coordination";
import type { StepKind } from "@oah/core";
import type { Claim, ParkedExecution } from "@oah/store";
import { abortReasonOf } from "../abort";
import type { ExecutionContext, RunJournal } from "../executors/executor";
import type { HookTarget } from "../hooks/hook-runner";
import type { HostContext } from "../host-context";
import { type ToolWaitHost, waitForTool } from "../tool-wait";
import type { Settled } from "./outcome";
import { endRun, type RunEndHost } from "./run-end";

/** What the execution of one run uses of its host: what its executor is given, its wait, its end. */
export type ExecutionHost = ToolWaitHost &
  RunEndHost &
  Pick<HostContext, "clock" | "observers" | "events" | "executors" | "workspaceRoot">;

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
      if (stepId !== null) open.set(stepId, { kind, name, startedAt: host.clock.now() });
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
  claim: Claim,
  controller: AbortController,
  resumed: ParkedExecution | undefined,
): ExecutionContext {
  const { run, journal, workspaceDir, signal } = target;
  return {
    run,
    signal,
    workspaceDir,
    journal,
    resumed: resumed ? { state: resumed.state, toolResult: resumed.toolResult } : null,
    waitForTool: (name, state) => waitForTool(host, { claim, controller }, name, state),
    fireHook: (event, detail) => host.hooks.fire(event, target, detail),
    runHookCommand: (name, command, timeoutMs) =>
      host.hooks.command(name, command, timeoutMs, target, "script"),
    previousOutput: () => host.store.previousOutput(run.sessionId, run.seq, run.executor),
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
  host.active.add({ claim, sessionId: run.sessionId, workspaceId: run.workspaceId, controller });
  // The run's deadline counts from its start, across parks and resumes.
  const deadline = Date.parse(run.startedAt ?? run.createdAt) + run.timeoutMs;
  const startedAt = host.clock.now();
  const timer = host.clock.setTimeout(
    () => controller.abort({ kind: "timeout" }),
    Math.max(0, deadline - startedAt),
  );
  const workspaceDir = join(host.workspaceRoot, run.workspaceId);
  const journal = journalFor(host, run, claim, controller);
  const hookTarget: HookTarget = { run, journal, workspaceDir, signal: controller.signal };
  let settled: Settled;
  try {
    const executor = host.executors.get(run.executor);
    if (!executor) throw new Error(`no executor named ${run.executor} on this host`);
    if (!resumed) await host.hooks.fire("run.started", hookTarget);
    const result = await executor.execute(contextOf(host, hookTarget, claim, controller, resumed));
    settled = { ok: true, output: result.output };
  } catch (error) {
    settled = { ok: false, error };
  } finally {
    timer.cancel();
  }
  const abort = abortReasonOf(controller.signal);
  endRun(host, { run, claim: sessionClaim, settled, abort, hookTarget, startedAt });
}
