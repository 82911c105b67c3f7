// @module-tag unit

import type { FakeModelRequest } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { AGENT_STEPS, agentReply } from "../src/workloads/checkpoints";

type Message = FakeModelRequest["body"]["messages"][number];

/** The steps of one turn as the agent executor makes them: a model step per reply, a tool step per call. */
function turn(history: Message[]): { steps: string[]; messages: Message[] } {
  const messages: Message[] = [...history, { role: "user", content: "Look around" }];
  const steps: string[] = [];
  for (;;) {
    const reply = agentReply({ model: "default", messages });
    steps.push("model");
    const calls = reply.toolCalls ?? [];
    messages.push({ role: "assistant", content: reply.content ?? null, tool_calls: calls });
    if (calls.length === 0) return { steps, messages };
    for (const _ of calls) {
      steps.push("tool");
      messages.push({ role: "tool", content: "{}" });
    }
  }
}

describe("the checkpoints workload's agent (the model stand-in's script)", () => {
  it("makes a turn of 10 steps, 5 model replies and 5 tool calls, the last reply an answer", () => {
    const { steps } = turn([]);
    expect(steps).toHaveLength(AGENT_STEPS);
    expect(steps.filter((s) => s === "model")).toHaveLength(5);
    expect(steps.at(-1)).toBe("model");
  });

  it("makes the same 10 steps on a later turn of the session, after the earlier turns' conversation", () => {
    const first = turn([]);
    const second = turn(first.messages);
    expect(second.steps).toEqual(first.steps);
  });
});
