/**
 * Whether a host runs the commands of runs (shell and hook steps, the agent's shell tool), and
 * if not, why: OAH_SHELL=off (`shell_disabled`), or a jail this host cannot make
 * (`commands_unavailable`, with the cause and the fix in `reason`). Runs that would execute a
 * command are refused at submission with the code, and fail with it if they reach a worker.
 */
export type CommandsAvailability =
  | { available: true }
  | { available: false; code: "shell_disabled" | "commands_unavailable"; reason: string };

export const COMMANDS_AVAILABLE: CommandsAvailability = { available: true };
