// @module-tag unit

import type { InspectedRun, RunEvent } from "@oah/contract";
import { IF_BUSY } from "@oah/core";
import { describe, expect, it } from "vitest";
import {
  endedBy,
  endedRuns,
  executingRun,
  IF_BUSY_TEXT,
  interruptNotice,
  shownPolicy,
} from "../src/lib/busy/policy";
import { run } from "./runs";

const queued = (data: RunEvent["data"]): RunEvent => ({
  id: 1,
  runId: "run_b",
  type: "run.queued",
  at: "2026-01-31T12:00:00.000Z",
  data,
});
const inspected = (id: string, status: InspectedRun["status"], parked = false): InspectedRun => ({
  id,
  position: 1,
  status,
  priority: "normal",
  workspaceId: "default",
  workerId: null,
  createdAt: "2026-01-31T12:00:00.000Z",
  startedAt: null,
  heartbeatAt: null,
  endedAt: null,
  parked,
  inQueue: false,
  ifBusy: "enqueue",
});

describe("a busy session's submissions on the run page", () => {
  it("names every policy, and shows those a submission chose", () => {
    expect(Object.keys(IF_BUSY_TEXT)).toEqual([...IF_BUSY]);
    expect(shownPolicy("enqueue")).toBeNull();
    for (const p of ["reject", "interrupt", "replace", "steer"] as const)
      expect(shownPolicy(p)).toBe(IF_BUSY_TEXT[p]);
  });

  it.each([
    ["no one", null, null],
    [
      "a later run's interrupt",
      { runId: "run_b", reason: "interrupted" },
      { label: "Interrupted by", runId: "run_b" },
    ],
    [
      "a later run's replace",
      { runId: "run_b", reason: "replaced" },
      { label: "Replaced by", runId: "run_b" },
    ],
    ["an operator", { runId: null, reason: "interrupted" }, { label: "Interrupted by", runId: null }],
  ] as const)("a run ended by %s tells so", (_, cancelledBy, shown) => {
    expect(endedBy(run({ cancelledBy }))).toEqual(shown);
  });

  it.each([
    ["interrupt", { seq: 2, cancelled: ["run_a"] }, { label: "Interrupted", runIds: ["run_a"] }],
    ["replace", { seq: 3, cancelled: ["run_a", "run_b"] }, { label: "Replaced", runIds: ["run_a", "run_b"] }],
    ["interrupt", { seq: 2, cancelled: [] }, null],
    ["interrupt", { seq: 2 }, null],
    ["enqueue", { seq: 2, cancelled: ["run_a"] }, null],
    ["reject", { seq: 2 }, null],
  ] as const)("a submission with %s whose run.queued is %j ended %j", (ifBusy, data, ended) => {
    expect(endedRuns(run({ ifBusy }), [queued(data as never)])).toEqual(ended);
  });

  it("knows nothing it ended before its events are read", () => {
    expect(endedRuns(run({ ifBusy: "replace" }), undefined)).toBeNull();
  });
});

describe("the session inspector's interrupt", () => {
  it.each([
    [
      "a running run",
      [inspected("a", "completed"), inspected("b", "running"), inspected("c", "queued")],
      "b",
    ],
    ["a held tool wait", [inspected("b", "waiting_tool")], "b"],
    [
      "a parked run: it executes nowhere",
      [inspected("b", "waiting_tool", true), inspected("c", "queued")],
      null,
    ],
    ["only queued and ended runs", [inspected("a", "cancelled"), inspected("c", "queued")], null],
  ] as const)("targets %s", (_, runs, target) => {
    expect(executingRun(runs)?.id ?? null).toBe(target);
  });

  it.each([
    ["running", "Run run_b stops at its next step boundary."],
    ["cancelled", "Run run_b ended: cancelled."],
    ["completed", "Run run_b ended: completed."],
  ] as const)("an answer of %s tells %s", (status, text) => {
    expect(interruptNotice({ runId: "run_b", status })).toEqual({ kind: "ok", text });
  });
});
