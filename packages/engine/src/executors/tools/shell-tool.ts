import type { OnInterrupt } from "@oah/core";
import {
  type CommandFile,
  type CommandResult,
  type CommandRunner,
  refusalOf,
  rerunEnv,
} from "../../commands/command-runner";
import { RunFailure } from "../../run-failure";
import type { Checkpoint, ExecutionContext, InterruptedStep } from "../executor";

export interface ShellToolOptions {
  /** Per call, unless the call sets `timeoutMs` (OAH_TOOL_TIMEOUT_MS). */
  toolTimeoutMs: number;
  /** Where commands run (the jail); a NoCommands where none run, whose refusal fails the run. */
  commands: CommandRunner;
}

export interface ShellCall {
  command: string;
  timeoutMs?: number;
  /** A non-zero exit is not a failure of the call. */
  allowFailure?: boolean;
  /** Where the call comes from (a step index, a model's tool call id), for the record. */
  origin: Record<string, unknown>;
  /** Files the command finds read-only (the results of client tools). */
  files?: readonly CommandFile[];
  /** What recovery does if the execution dies while the command runs (docs/spec.md §7; default rerun). */
  onInterrupt?: OnInterrupt;
  /** The step an earlier attempt was running when it died, when this call runs it again. */
  rerun?: InterruptedStep | null;
  /** What a later attempt goes on from once this call is done: saved with its step's end, unless it failed. */
  checkpointOf?: (result: ShellToolResult) => Checkpoint;
}

export interface ShellToolResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncatedBytes: number;
  durationMs: number;
  /** Why the call failed: `tool_timed_out` or `tool_failed`; null when it did not (or the run was aborted). */
  failure: RunFailure | null;
}

/**
 * The shell tool (docs/spec.md §6): one command in the run's workspace, with its record
 * (a `tool` step, tool.started / completed / failed events) and the tool hooks
 * around it. Whether a failure fails the run is the caller's call.
 */
export async function runShellTool(
  call: ShellCall,
  context: ExecutionContext,
  env: NodeJS.ProcessEnv,
  options: ShellToolOptions,
): Promise<ShellToolResult> {
  const { journal } = context;
  const { commands } = options;
  const refused = refusalOf(commands);
  if (refused) throw refused;
  await context.fireHook("tool.before", { tool: "shell", command: call.command, ...call.origin });
  const stepId = await journal.startStep("tool", "shell", { onInterrupt: call.onInterrupt ?? "rerun" });
  await journal.event("tool.started", { stepId, tool: "shell", command: call.command, ...call.origin });
  const limit = call.timeoutMs ?? options.toolTimeoutMs;
  let result: CommandResult;
  try {
    result = await commands.run({
      command: call.command,
      workspaceDir: context.workspaceDir,
      env: { ...env, ...rerunEnv(call.rerun) },
      files: call.files,
      timeoutMs: limit,
      signal: context.signal,
      // Streamed into the step while it runs, so that its output can be watched live.
      onProgress:
        stepId === null
          ? undefined
          : (partial) =>
              void journal.updateStep(stepId, { command: call.command, ...partial }).catch(() => {}),
    });
  } catch (error) {
    // The command did not start (its workspace refused, its process not made: spawn E2BIG,
    // EAGAIN…): its step ends with why, and the run fails with it, never left running.
    const failure =
      error instanceof RunFailure
        ? error
        : new RunFailure("tool_failed", `the shell command could not start: ${(error as Error).message}`);
    if (stepId !== null) {
      await journal.finishStep(stepId, {
        status: "failed",
        output: { command: call.command },
        errorCode: failure.code,
        errorMessage: failure.message,
      });
    }
    await journal.event("tool.failed", { stepId, tool: "shell", ...call.origin, errorCode: failure.code });
    throw failure;
  }
  const failure = result.timedOut
    ? new RunFailure("tool_timed_out", `the shell command did not finish within ${limit} ms`)
    : result.outputExceeded
      ? new RunFailure(
          "tool_failed",
          "the shell command wrote more output than a step may (OAH_STEP_MAX_OUTPUT_BYTES) and was stopped",
        )
      : result.aborted
        ? null // the run is ending for another reason, which the worker records
        : result.exitCode !== 0 && !call.allowFailure
          ? new RunFailure("tool_failed", `the shell command exited with ${result.exitCode ?? result.signal}`)
          : null;
  const failed = failure !== null || result.aborted;
  const record = {
    command: call.command,
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
    truncatedBytes: result.truncatedBytes,
    durationMs: result.durationMs,
  };
  if (stepId !== null) {
    await journal.finishStep(
      stepId,
      {
        status: failed ? "failed" : "completed",
        output: record,
        ...(failure ? { errorCode: failure.code, errorMessage: failure.message } : {}),
      },
      failed ? undefined : call.checkpointOf?.({ ...record, failure }),
    );
  }
  await journal.event(failed ? "tool.failed" : "tool.completed", {
    stepId,
    tool: "shell",
    exitCode: result.exitCode,
    ...call.origin,
    ...(failure ? { errorCode: failure.code } : {}),
  });
  await context.fireHook("tool.after", { tool: "shell", exitCode: result.exitCode, ...call.origin });
  return { ...record, failure };
}
