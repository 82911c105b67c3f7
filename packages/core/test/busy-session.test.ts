// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  type BusyCancelReason,
  type BusyDecision,
  busyDecision,
  type IfBusy,
  type UnfinishedRun,
} from "../src/busy-session";

const running: UnfinishedRun = { id: "r", status: "running", parked: false };
const held: UnfinishedRun = { id: "h", status: "waiting_tool", parked: false };
const parked: UnfinishedRun = { id: "p", status: "waiting_tool", parked: true };
const queued1: UnfinishedRun = { id: "q1", status: "queued", parked: false };
const queued2: UnfinishedRun = { id: "q2", status: "queued", parked: false };

const admit = (cancel: string[], reason: BusyCancelReason | null): BusyDecision => ({
  admit: true,
  cancel,
  reason,
});

const table: [IfBusy, UnfinishedRun[], BusyDecision][] = [
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
];

describe("busyDecision", () => {
  it.each(table)("%s with %j", (policy, unfinished, expected) => {
    expect(busyDecision(policy, unfinished)).toEqual(expected);
  });
});
