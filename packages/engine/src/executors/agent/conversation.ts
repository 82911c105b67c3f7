import { type InterruptedStatus, isInterrupted } from "@oah/core";
import { RunFailure } from "../../run-failure";
import type { CarriedRun } from "../executor";
import type { ChatMessage } from "../model/model-client";

/**
 * Where the conversation an agent run goes on from comes from (docs/spec.md §12, *The agent
 * executor*): the session's earlier run, and how many of its messages. The run's checkpoints
 * and its parked state name it instead of logging those messages again.
 */
export interface CarriedFrom {
  runId: string;
  messages: number;
}

/** How a run cut short ended, as the conversation going on from it is told. */
export interface InterruptedEnd {
  runId: string;
  status: InterruptedStatus;
  errorCode: string | null;
  errorMessage: string | null;
}

/** Reads a run of the session by id (ExecutionContext.carriedRun). */
export type ReadRun = (runId: string) => Promise<CarriedRun | null>;

/** The checkpoint state's part that names the carried conversation (the agent's AgentCheckpoint). */
interface CarriedState {
  carried?: CarriedFrom;
}

const endText = (end: InterruptedEnd): string =>
  `run ${end.runId} ${end.status === "timed_out" ? "timed out" : "was cancelled"}${
    end.errorMessage ? ` (${end.errorMessage})` : ""
  }`;

/**
 * What closes the conversation of a run cut short, to be appended to it: a tool message for each
 * tool call of its last reply that has none (a provider refuses a call without its result),
 * saying it was not answered and why, then a note telling the model the turn ended early.
 * Only the last reply can have unanswered calls: the agent answers every call of a reply before
 * its next model call, and logs each answer before that call.
 */
export function closingOf(messages: readonly ChatMessage[], end: InterruptedEnd): ChatMessage[] {
  const last = messages.findLastIndex((m) => m.role === "assistant");
  const answered = new Set(
    messages.slice(last + 1).flatMap((m) => (m.role === "tool" && m.tool_call_id ? [m.tool_call_id] : [])),
  );
  const unanswered = last < 0 ? [] : (messages[last]!.tool_calls ?? []).filter((c) => !answered.has(c.id));
  const why = endText(end);
  return [
    ...unanswered.map(
      (call): ChatMessage => ({
        role: "tool",
        tool_call_id: call.id,
        content: JSON.stringify({
          error: `not answered: ${why} before this call's result`,
          interrupted: { status: end.status, errorCode: end.errorCode, errorMessage: end.errorMessage },
        }),
      }),
    ),
    {
      role: "user",
      content: `The previous turn was cut short: ${why} before it finished${
        unanswered.length > 0 ? `; ${unanswered.length} tool call(s) got no result` : ""
      }.`,
    },
  ];
}

/**
 * The conversation a run leaves for the session's next one: a completed run's, its output's; a
 * run cut short's, what it carried and its log up to its last checkpoint (not yet closed).
 */
export async function conversationOf(run: CarriedRun, read: ReadRun): Promise<ChatMessage[]> {
  if (!run.checkpoints) {
    const messages = (run.output as { messages?: unknown } | null)?.messages;
    return Array.isArray(messages) ? (messages as ChatMessage[]) : [];
  }
  const { carried } = (run.checkpoints.state ?? {}) as CarriedState;
  return [...(await carriedPart(carried, read)), ...(run.checkpoints.log as ChatMessage[])];
}

/**
 * The carried part a checkpoint or a parked state names, read from the run it names (whatever
 * the session's previous run is now); none when it names none (nothing carried, or a state an
 * earlier version wrote, whose log holds the whole conversation).
 */
export async function carriedPart(from: CarriedFrom | undefined, read: ReadRun): Promise<ChatMessage[]> {
  if (!from) return [];
  const run = await read(from.runId);
  const messages = run ? await conversationOf(run, read) : [];
  if (messages.length < from.messages)
    throw new RunFailure(
      "executor_failed",
      `the conversation carried from run ${from.runId} is no longer stored (${from.messages} messages expected, ${messages.length} found)`,
    );
  return messages.slice(0, from.messages);
}

/** How a run cut short ended; null for a completed one. */
export function interruptedEnd(run: CarriedRun): InterruptedEnd | null {
  if (!isInterrupted(run.status)) return null;
  return { runId: run.id, status: run.status, errorCode: run.errorCode, errorMessage: run.errorMessage };
}
