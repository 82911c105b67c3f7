// @module-tag unit

import type { RunEvent, RunStep } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { runModelUsage, tokensText } from "../src/lib/usage/run-usage";

const at = (s: number) => new Date(Date.UTC(2026, 11, 4, 12, 0, s)).toISOString();
const started = (id: number, s: number, attempt: number): RunEvent => ({
  id,
  runId: "r",
  type: "run.started",
  at: at(s),
  data: { workerId: "w", attempt },
});
const step = (
  id: number,
  s: number,
  kind: RunStep["kind"],
  status: RunStep["status"],
  usage?: object | null,
): RunStep => ({
  id,
  runId: "r",
  kind,
  name: kind === "model" ? "m" : "shell",
  status,
  startedAt: at(s),
  endedAt: at(s + 1),
  output: usage === undefined ? null : { content: "x", usage },
  errorCode: null,
  errorMessage: null,
});
const u = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: 0,
});

describe("a run's model usage", () => {
  it.each([
    ["no steps", [], [started(1, 0, 1)], null],
    ["only a command", [step(1, 1, "tool", "completed")], [started(1, 0, 1)], null],
    [
      "one attempt; a failed call and a call without usage count as they are",
      [
        step(1, 1, "model", "completed", u(10, 2)),
        step(2, 2, "model", "failed"),
        step(3, 3, "model", "completed", null),
      ],
      [started(1, 0, 1)],
      {
        calls: 2,
        promptTokens: 10,
        completionTokens: 2,
        byAttempt: [{ attempt: 1, calls: 2, promptTokens: 10, completionTokens: 2 }],
      },
    ],
    [
      "two attempts: each call to the attempt executing when it started",
      [
        step(1, 1, "model", "completed", u(10, 2)),
        step(2, 5, "model", "completed", u(30, 4)),
        step(3, 6, "model", "completed", u(1, 1)),
      ],
      [started(1, 0, 1), started(9, 4, 2)],
      {
        calls: 3,
        promptTokens: 41,
        completionTokens: 7,
        byAttempt: [
          { attempt: 1, calls: 1, promptTokens: 10, completionTokens: 2 },
          { attempt: 2, calls: 2, promptTokens: 31, completionTokens: 5 },
        ],
      },
    ],
  ] as const)("%s", (_, steps, events, expected) => {
    expect(runModelUsage(steps as readonly RunStep[], events as readonly RunEvent[])).toEqual(expected);
  });

  it("says it in a line", () => {
    expect(tokensText({ calls: 1, promptTokens: 1200, completionTokens: 80 })).toBe(
      "1 call, 1,200 + 80 tokens",
    );
    expect(tokensText({ calls: 3, promptTokens: 0, completionTokens: 0 })).toBe("3 calls, 0 + 0 tokens");
  });
});
