// @module-tag unit

import { describe, expect, it } from "vitest";
import { type JamKind, jamsOf, type SessionJamFacts } from "../src";

const HEARTBEAT_MS = 1_000;
const calm: SessionJamFacts = {
  lock: null,
  ready: false,
  queuedRuns: 0,
  awaitingRuns: 0,
  lostRuns: 0,
  staleRuns: 0,
  headBlocked: false,
};
const lock = (silentMs: number, holderLive = false) => ({ lock: { silentMs, holderLive } });

// name, facts (over a calm session), the jams (heartbeat every second: orphaned past 2 s unrenewed)
const TABLE: [string, Partial<SessionJamFacts>, JamKind[]][] = [
  ["nothing waiting, nothing held", {}, []],
  ["ready with runs", { ready: true, queuedRuns: 2, awaitingRuns: 2 }, []],
  ["a lock renewed a moment ago", lock(300), []],
  ["a lock unrenewed for two heartbeats exactly", lock(2_000), []],
  ["a lock unrenewed past two heartbeats", lock(2_001), ["orphan_lock"]],
  ["a silent lock whose holder's worker is alive", lock(60_000, true), []],
  ["ready with no runs and no lock", { ready: true }, ["stale_ready"]],
  ["a run the queue lost", { awaitingRuns: 1, lostRuns: 1 }, ["lost_run"]],
  ["held runs, neither ready nor locked", { queuedRuns: 2, awaitingRuns: 2 }, ["lost_wake"]],
  [
    "held runs behind an earlier unfinished run (parked)",
    { queuedRuns: 1, awaitingRuns: 1, headBlocked: true },
    [],
  ],
  ["held runs of a locked session", { ...lock(100), queuedRuns: 2, awaitingRuns: 2 }, []],
  ["held runs that have not waited long yet", { queuedRuns: 1 }, []],
  [
    "one run lost, the others held, none ready",
    { queuedRuns: 1, awaitingRuns: 2, lostRuns: 1 },
    ["lost_run", "lost_wake"],
  ],
  ["an active run past stale", { ...lock(100, true), staleRuns: 1 }, ["stale_active"]],
  [
    "a dead holder's lock and its stale run",
    { ...lock(9_000), staleRuns: 1 },
    ["orphan_lock", "stale_active"],
  ],
];

describe("jamsOf (docs/spec.md §7, jams)", () => {
  it.each(TABLE)("%s", (_name, facts, expected) => {
    expect(jamsOf({ ...calm, ...facts }, HEARTBEAT_MS)).toEqual(expected);
  });
});
