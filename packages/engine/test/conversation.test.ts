// @module-tag unit

import { describe, expect, it } from "vitest";
import { closingOf, type InterruptedEnd } from "../src/executors/agent/conversation";
import type { ChatMessage, ToolCall } from "../src/executors/model/model-client";

const call = (id: string): ToolCall => ({
  type: "function",
  id,
  function: { name: "shell", arguments: '{"command":"sleep 30"}' },
});
const asks = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map(call),
});
const answer = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: '{"exitCode":0}' });
const user: ChatMessage = { role: "user", content: "Run it." };
const said: ChatMessage = { role: "assistant", content: "Done." };

const CANCELLED: InterruptedEnd = {
  runId: "run_A",
  status: "cancelled",
  errorCode: "interrupted",
  errorMessage: "interrupted by run run_X",
};
const TIMED_OUT: InterruptedEnd = {
  runId: "run_A",
  status: "timed_out",
  errorCode: "run_timed_out",
  errorMessage: "run exceeded its timeout of 500 ms",
};
const BARE: InterruptedEnd = { runId: "run_A", status: "cancelled", errorCode: null, errorMessage: null };

describe("closingOf: what closes the conversation of a run cut short", () => {
  const cases: {
    name: string;
    messages: ChatMessage[];
    end: InterruptedEnd;
    /** The tool calls answered as not answered, in order, and what each answer says. */
    closed: string[];
    error?: string;
    note: string;
  }[] = [
    {
      name: "a shell call in flight: answered as cut short by the cancel, with its cause",
      messages: [user, asks("c1")],
      end: CANCELLED,
      closed: ["c1"],
      error: "not answered: run run_A was cancelled (interrupted by run run_X) before this call's result",
      note: "The previous turn was cut short: run run_A was cancelled (interrupted by run run_X) before it finished; 1 tool call(s) got no result.",
    },
    {
      name: "two calls of one reply, the first answered: only the second",
      messages: [user, asks("c1", "c2"), answer("c1")],
      end: CANCELLED,
      closed: ["c2"],
      error: "not answered: run run_A was cancelled (interrupted by run run_X) before this call's result",
      note: "The previous turn was cut short: run run_A was cancelled (interrupted by run run_X) before it finished; 1 tool call(s) got no result.",
    },
    {
      name: "an earlier reply's calls all answered, the last reply's none: the last reply's",
      messages: [user, asks("c1"), answer("c1"), asks("c2", "c3")],
      end: TIMED_OUT,
      closed: ["c2", "c3"],
      error:
        "not answered: run run_A timed out (run exceeded its timeout of 500 ms) before this call's result",
      note: "The previous turn was cut short: run run_A timed out (run exceeded its timeout of 500 ms) before it finished; 2 tool call(s) got no result.",
    },
    {
      name: "every call answered (cut short before the next model call): the note only",
      messages: [user, asks("c1"), answer("c1")],
      end: BARE,
      closed: [],
      note: "The previous turn was cut short: run run_A was cancelled before it finished.",
    },
    {
      name: "the final answer given: the note only",
      messages: [user, said],
      end: BARE,
      closed: [],
      note: "The previous turn was cut short: run run_A was cancelled before it finished.",
    },
    {
      name: "no reply yet: the note only",
      messages: [user],
      end: TIMED_OUT,
      closed: [],
      note: "The previous turn was cut short: run run_A timed out (run exceeded its timeout of 500 ms) before it finished.",
    },
  ];

  it.each(cases)("$name", ({ messages, end, closed, error, note }) => {
    const closing = closingOf(messages, end);
    expect(closing.map((m) => [m.role, m.tool_call_id ?? null])).toEqual([
      ...closed.map((id) => ["tool", id]),
      ["user", null],
    ]);
    expect(closing.at(-1)!.content).toBe(note);
    for (const m of closing.slice(0, -1)) {
      expect(JSON.parse(m.content!)).toEqual({
        error,
        interrupted: { status: end.status, errorCode: end.errorCode, errorMessage: end.errorMessage },
      });
    }
    // Closed, every tool call of the conversation has its result.
    const all = [...messages, ...closing];
    const asked = all.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    const answered = all.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []));
    expect(answered.sort()).toEqual(asked.sort());
  });
});
