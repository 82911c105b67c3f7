// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  type BusyCancelReason,
  type BusyDecision,
  busyDecision,
  type IfBusy,
  type UnfinishedRun,
} from "../src/busy-session";

const run = (
  id: string,
  status: UnfinishedRun["status"],
  more: Partial<UnfinishedRun> = {},
): UnfinishedRun => ({
  id,
  status,
  parked: false,
  executor: "script",
  stopping: false,
  ...more,
});
const running = run("r", "running");
const held = run("h", "waiting_tool");
const parked = run("p", "waiting_tool", { parked: true });
const queued1 = run("q1", "queued");
const queued2 = run("q2", "queued");
const agent = run("a", "running", { executor: "agent" });
const agentParked = run("ap", "waiting_tool", { executor: "agent", parked: true });
const agentStopping = run("as", "running", { executor: "agent", stopping: true });
const agentQueued = run("aq", "queued", { executor: "agent" });

const admit = (cancel: string[], reason: BusyCancelReason | null): BusyDecision => ({
  admit: true,
  cancel,
  reason,
});

const table: [IfBusy, UnfinishedRun[], BusyDecision, string?][] = [
  // enqueue: the tail, whatever the session holds.
  ["enqueue", [], admit([], null)],
  ["enqueue", [running, queued1], admit([], null)],
  // reject: refused while anything is unfinished, naming the executing run first, else the head.
  ["reject", [], admit([], null)],
  ["reject", [queued1, queued2], { admit: false, holder: "q1" }],
  ["reject", [running, queued1], { admit: false, holder: "r" }],
  ["reject", [parked], { admit: false, holder: "p" }],
  // interrupt: the executing run (running, waiting held or parked) only; queued runs stay.
  ["interrupt", [], admit([], "interrupted")],
  ["interrupt", [queued1], admit([], "interrupted")],
  ["interrupt", [running, queued1, queued2], admit(["r"], "interrupted")],
  ["interrupt", [held], admit(["h"], "interrupted")],
  ["interrupt", [parked, queued1], admit(["p"], "interrupted")],
  // replace: every unfinished run.
  ["replace", [], admit([], "replaced")],
  ["replace", [running, queued1, queued2], admit(["r", "q1", "q2"], "replaced")],
  ["replace", [queued1], admit(["q1"], "replaced")],
  // steer: an agent's prompt joins the executing agent run (parked too), unless it is stopping;
  // otherwise, and for a script, the tail.
  ["steer", [agent, queued1], { steer: "a" }, "agent"],
  ["steer", [agentParked], { steer: "ap" }, "agent"],
  ["steer", [agentStopping], admit([], null), "agent"],
  ["steer", [agentQueued], admit([], null), "agent"],
  ["steer", [running], admit([], null), "agent"],
  ["steer", [], admit([], null), "agent"],
  ["steer", [agent], admit([], null), "script"],
];

describe("busyDecision", () => {
  it.each(table)("%s with %j", (policy, unfinished, expected, executor = "script") => {
    expect(busyDecision(policy, unfinished, executor)).toEqual(expected);
  });
});
