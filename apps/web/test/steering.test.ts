// @module-tag unit

import type { RunEvent } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { SHOWN_CHARS, shorten, steeringMessages, steeringOnSteps } from "../src/lib/steering/messages";

const event = (id: number, type: RunEvent["type"], data: RunEvent["data"]): RunEvent => ({
  id,
  runId: "run_01JABCDEFGHJKMNPQRSTVWXYZ0",
  type,
  at: `2026-01-31T12:00:${String(id).padStart(2, "0")}.000Z`,
  data,
});
const message = (id: number, content = `message ${id}`) => event(id, "run.message", { content });
const modelStarted = (id: number, stepId: number) =>
  event(id, "model.started", { stepId, model: "fake-1", messages: 3 });
const toolStarted = (id: number, stepId: number) => event(id, "tool.started", { stepId, name: "shell" });

describe("the model step that received a message", () => {
  it.each<[string, RunEvent[], [number, number | null][]]>([
    ["none sent", [modelStarted(1, 1), toolStarted(2, 2), modelStarted(3, 3)], []],
    [
      "sent while a command ran: the next model call",
      [modelStarted(1, 1), toolStarted(2, 2), message(3), modelStarted(4, 3)],
      [[3, 3]],
    ],
    [
      "two before one call: both in it, in order",
      [modelStarted(1, 1), message(2), message(3), modelStarted(4, 3)],
      [
        [2, 3],
        [3, 3],
      ],
    ],
    [
      "one per call",
      [modelStarted(1, 1), message(2), modelStarted(3, 3), message(4), modelStarted(5, 5)],
      [
        [2, 3],
        [4, 5],
      ],
    ],
    [
      "sent during a model call: the one after it, not the one running",
      [modelStarted(1, 1), message(2), toolStarted(3, 2)],
      [[2, null]],
    ],
    ["before the first call (queued): the first", [message(1), modelStarted(2, 1)], [[1, 1]]],
    [
      "events out of order: placed by their ids",
      [modelStarted(4, 3), message(3), modelStarted(1, 1)],
      [[3, 3]],
    ],
    [
      "a model.started without its step: not a place",
      [message(1), event(2, "model.started", {}), modelStarted(3, 2)],
      [[1, 2]],
    ],
  ])("%s", (_, events, placed) => {
    expect(steeringMessages(events).map((m) => [m.eventId, m.stepId])).toEqual(placed);
  });

  it("keeps the message's time and content", () => {
    expect(steeringMessages([message(7, "Also check the logs.")])).toEqual([
      {
        eventId: 7,
        at: "2026-01-31T12:00:07.000Z",
        content: "Also check the logs.",
        shown: "Also check the logs.",
        stepId: null,
      },
    ]);
  });
});

describe("a long message", () => {
  it.each<[string, string, string]>([
    ["short: whole", "be brief", "be brief"],
    ["at the limit: whole", "x".repeat(SHOWN_CHARS), "x".repeat(SHOWN_CHARS)],
    ["over it: cut, with an ellipsis", "x".repeat(SHOWN_CHARS + 1), `${"x".repeat(SHOWN_CHARS - 1)}…`],
    [
      "cut after a space: no space before the ellipsis",
      `${"a".repeat(SHOWN_CHARS - 2)} bc`,
      `${"a".repeat(SHOWN_CHARS - 2)}…`,
    ],
  ])("%s", (_, content, shown) => {
    expect(shorten(content)).toBe(shown);
    expect(shorten(content).length).toBeLessThanOrEqual(SHOWN_CHARS);
  });
});

describe("the messages on the steps", () => {
  const events = [
    modelStarted(1, 1),
    toolStarted(2, 2),
    message(3),
    message(4),
    modelStarted(5, 3),
    message(6),
  ];
  const placed = (stepIds: number[], ended: boolean) => {
    const { before, after } = steeringOnSteps(events, stepIds, ended);
    return {
      before: [...before.entries()].map(([stepId, ms]) => [stepId, ms.map((m) => m.eventId)]),
      after: after.map(({ message, note }) => [message.eventId, note]),
    };
  };

  it.each<[string, number[], boolean, ReturnType<typeof placed>]>([
    [
      "running: before the step that received them; the last waits",
      [1, 2, 3],
      false,
      { before: [[3, [3, 4]]], after: [[6, "waiting for the agent's next model call"]] },
    ],
    [
      "ended: the last was answered by nobody",
      [1, 2, 3],
      true,
      { before: [[3, [3, 4]]], after: [[6, "sent after its last model call: not answered"]] },
    ],
    [
      "its step not listed yet: after the steps, naming it",
      [1, 2],
      false,
      {
        before: [],
        after: [
          [3, "received by step #3"],
          [4, "received by step #3"],
          [6, "waiting for the agent's next model call"],
        ],
      },
    ],
  ])("%s", (_, stepIds, ended, expected) => {
    expect(placed(stepIds, ended)).toEqual(expected);
  });
});
