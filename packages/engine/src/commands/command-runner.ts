import type { CommandsAvailability } from "@oah/core";
import { RunFailure } from "../run-failure";

/** What a command printed so far: the first bytes of each stream, and how many bytes were not kept. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  truncatedBytes: number;
}

export interface CommandResult extends CommandOutput {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Stopped for writing more than `CommandBounds.stopAfterOutputBytes`. */
  outputExceeded: boolean;
  aborted: boolean;
  durationMs: number;
}

/**
 * A file given to a command, read-only, whose path its environment names (`env`): what may be
 * too large for the environment (a variable of more than 128 KiB, or all of them past about
 * 2 MiB, and the command cannot start: E2BIG).
 */
export interface CommandFile {
  /** A file name, no directory. */
  name: string;
  /** The variable that holds the file's path. */
  env: string;
  content: string;
}

/** The largest value a command gets in its environment as well as in its file; past it, in the file only. */
export const INLINE_VALUE_MAX_BYTES = 65_536;

/**
 * A value for a command (JSON): always in a file, whose path `<name>_FILE` holds, and in `name`
 * itself too while it is at most INLINE_VALUE_MAX_BYTES.
 */
export function commandValue(
  name: string,
  fileName: string,
  content: string,
): { env: Record<string, string>; file: CommandFile } {
  const inline = Buffer.byteLength(content) <= INLINE_VALUE_MAX_BYTES;
  return { env: inline ? { [name]: content } : {}, file: { name: fileName, env: `${name}_FILE`, content } };
}

/** One command of a run: a shell step, a hook, or a call of the agent's shell tool. */
export interface CommandRequest {
  /** Run by `/bin/sh -c`. */
  command: string;
  /** The run's workspace, `<OAH_WORKSPACE_ROOT>/<workspaceId>`: where the command runs, and all it may write. */
  workspaceDir: string;
  /** The whole environment of the command (a clean one: never the host's). */
  env: NodeJS.ProcessEnv;
  /** Files the command finds read-only, each named by a variable of its environment. */
  files?: readonly CommandFile[];
  timeoutMs: number;
  /** Stops the command and everything it started. */
  signal: AbortSignal;
  /** Told the output so far, at most once a second while the command runs. */
  onProgress?: (output: CommandOutput) => void;
}

/**
 * How a host runs the commands of runs: in a step jail that ends with the command and
 * with the host (JailedCommands), or unconfined on the host (HostCommands, only
 * with OAH_SHELL=unsafe-host). A workspace that cannot be used rejects the command
 * with a RunFailure `workspace_invalid`.
 */
export interface CommandRunner {
  run(request: CommandRequest): Promise<CommandResult>;
  /** Stops what the runner keeps for all commands (the step watchdog). */
  close?(): void;
}

/**
 * The runner of a host that runs no commands (OAH_SHELL=off, or no jail here): each command
 * fails its run with the code and the reason, and so does a run that would run one, before it starts.
 */
export class NoCommands implements CommandRunner {
  constructor(readonly why: Extract<CommandsAvailability, { available: false }>) {}

  refusal(): RunFailure {
    return new RunFailure(this.why.code, `this host runs no commands: ${this.why.reason}`);
  }

  async run(): Promise<CommandResult> {
    throw this.refusal();
  }
}

/** Why `commands` runs nothing, or null when it runs commands. */
export const refusalOf = (commands: CommandRunner): RunFailure | null =>
  commands instanceof NoCommands ? commands.refusal() : null;

/** What every runner bounds the same way. */
export interface CommandBounds {
  /** Bytes kept of each of stdout and stderr; the rest is counted and dropped as it arrives. */
  maxOutputBytes: number;
  /** A command that writes more than this in all (OAH_STEP_MAX_OUTPUT_BYTES) is stopped. */
  stopAfterOutputBytes: number;
  /** Between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs: number;
}

/**
 * What a command run again after its execution died is told (docs/spec.md §7), so that it can
 * make itself idempotent: that it is resumed, and the step id of the run it was in before.
 */
export const rerunEnv = (rerun: { stepId: number } | null | undefined): NodeJS.ProcessEnv =>
  rerun ? { OAH_RESUMED: "1", OAH_INTERRUPTED_STEP_ID: String(rerun.stepId) } : {};
