import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sqliteFileFor } from "@oah/store";
import Database from "better-sqlite3";
import type { FakeReply } from "./fake-model";

/**
 * The fixtures of the durable-run tests (docs/spec.md §7), shared by every deployment they run
 * on: commands that leave a mark per execution in their workspace, an agent turn of five shell
 * calls and its model's replies, and a script of five shell steps.
 */

/** The file of marks, in the run's workspace: a line per execution of a marking command. */
const MARKS = "marks";

/**
 * A command that appends `label` and whether it is a rerun of an interrupted command
 * (`OAH_RESUMED`) to the workspace's marks; `sleepFirst` keeps its first execution in flight
 * (30 s, for the test to kill its host meanwhile), a later one goes straight on.
 */
export function markingCommand(label: string, sleepFirst = false): string {
  const mark = `echo "${label} resumed=\${OAH_RESUMED:-0}" >> ${MARKS}`;
  if (!sleepFirst) return mark;
  return `${mark}; if [ ! -f ${label}.slept ]; then touch ${label}.slept; sleep 30; fi`;
}

/**
 * A script run that makes `label`'s sleeping command (markingCommand with `sleepFirst`) go
 * straight on in the workspace it runs in: for an uninterrupted run of the same commands.
 */
export const withoutSleep = (label: string) => ({
  input: { steps: [{ type: "shell" as const, command: `touch ${label}.slept` }] },
});

/** Where the commands of `workspaceId`'s runs execute, for a deployment of this environment. */
export const workspaceDir = (env: Record<string, string>, workspaceId: string): string =>
  join(env.OAH_DATA_DIR!, ".openharness", "workspaces", workspaceId);

/** The marks left in `workspaceId` so far, a line each (empty before the first). */
export function readMarks(env: Record<string, string>, workspaceId: string): string[] {
  const path = join(workspaceDir(env, workspaceId), MARKS);
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

/** How many marks of `label` the workspace has. */
export const marksOf = (env: Record<string, string>, workspaceId: string, label: string): number =>
  readMarks(env, workspaceId).filter((line) => line.startsWith(`${label} `)).length;

/** The agent turn's shell calls: the model asks for one after each of its replies but the last. */
export const AGENT_SHELL_CALLS = 5;

/** The usage each of the agent's model replies reports. */
export const AGENT_REPLY_USAGE = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };

/** The answer the agent's model gives after its last shell call. */
export const AGENT_ANSWER = "Five commands ran.";

/** The agent turn: the shell tool with its interrupt policy, enough model calls for all replies. */
export function agentTurn(shellOnInterrupt: "rerun" | "fail" = "rerun") {
  return {
    executor: "agent" as const,
    input: {
      prompt: "Run the five commands, one at a time.",
      system: "You run commands.",
      tools: { shell: true, shellOnInterrupt },
      maxSteps: AGENT_SHELL_CALLS + 1,
    },
  };
}

/**
 * The model's replies to the agent turn: five that each ask for a marking shell call (`call-1`
 * … `call-5`; `sleepingCall`'s first execution sleeps), then the final answer.
 */
export function agentReplies(sleepingCall?: number): FakeReply[] {
  const calls = Array.from({ length: AGENT_SHELL_CALLS }, (_, i): FakeReply => {
    const n = i + 1;
    return {
      content: `Running command ${n}.`,
      toolCalls: [
        {
          id: `call_${n}`,
          name: "shell",
          arguments: { command: markingCommand(`call-${n}`, n === sleepingCall) },
        },
      ],
      usage: AGENT_REPLY_USAGE,
    };
  });
  return [...calls, { content: AGENT_ANSWER, usage: AGENT_REPLY_USAGE }];
}

/**
 * A reply that never ends (its first chunk, then nothing): the model call in flight when the
 * test kills its host.
 */
export const IN_FLIGHT_REPLY: FakeReply = { content: "Running command", stall: true };

/** A script of five marking shell steps (`step-1` … `step-5`); the third's first execution sleeps. */
export function fiveShellSteps(thirdOnInterrupt?: "rerun" | "fail") {
  return {
    input: {
      steps: Array.from({ length: 5 }, (_, i) => ({
        type: "shell" as const,
        command: markingCommand(`step-${i + 1}`, i === 2),
        ...(i === 2 && thirdOnInterrupt ? { onInterrupt: thirdOnInterrupt } : {}),
      })),
    },
  };
}

/** A checkpoint as the store keeps it: its state, what it adds to the run's log, and its size as JSON text. */
export interface StoredCheckpoint {
  state: unknown;
  appended: unknown[] | null;
  bytes: number;
}

/** The checkpoints of a run in the SQLite store of the embedded default in `dataDir`, oldest first. */
export function storedCheckpoints(dataDir: string, runId: string): StoredCheckpoint[] {
  const db = new Database(sqliteFileFor(dataDir), { readonly: true });
  try {
    db.pragma("busy_timeout = 5000");
    const rows = db
      .prepare("SELECT state, appended FROM run_checkpoints WHERE run_id = ? ORDER BY id")
      .all(runId) as { state: string | null; appended: string | null }[];
    return rows.map((r) => ({
      state: r.state === null ? null : JSON.parse(r.state),
      appended: r.appended === null ? null : JSON.parse(r.appended),
      bytes: Buffer.byteLength(r.state ?? "") + Buffer.byteLength(r.appended ?? ""),
    }));
  } finally {
    db.close();
  }
}
