// @module-tag unit

import { describe, expect, it } from "vitest";
import { canTransition, RUN_STATUSES, type RunStatus } from "../src";

// Every pair of statuses and whether an execution may move between them (docs/spec.md §4).
const EXECUTION: [RunStatus, RunStatus[]][] = [
  ["queued", ["running", "cancelled", "failed"]],
  ["running", ["waiting_tool", "completed", "failed", "cancelled", "timed_out"]],
  ["waiting_tool", ["running", "completed", "failed", "cancelled", "timed_out"]],
  ["completed", []],
  ["failed", []],
  ["cancelled", []],
  ["timed_out", []],
];

const REQUEUE: [RunStatus, RunStatus[]][] = [
  ["queued", []],
  ["running", ["queued"]],
  ["waiting_tool", ["queued"]],
  ["completed", []],
  ["failed", ["queued"]],
  ["cancelled", ["queued"]],
  ["timed_out", ["queued"]],
];

describe("run status transitions", () => {
  const pairs = RUN_STATUSES.flatMap((from) => RUN_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)("execution %s → %s", (from, to) => {
    const allowed = EXECUTION.find(([f]) => f === from)![1];
    expect(canTransition(from, to)).toBe(allowed.includes(to));
  });

  it.each(pairs)("requeue %s → %s", (from, to) => {
    const allowed = REQUEUE.find(([f]) => f === from)![1];
    expect(canTransition(from, to, "requeue")).toBe(allowed.includes(to));
  });

  it("never lets a status move to itself (running → running is a second execution)", () => {
    for (const status of RUN_STATUSES) {
      expect(canTransition(status, status)).toBe(false);
      expect(canTransition(status, status, "requeue")).toBe(false);
    }
  });
});
