// @module-tag unit

import type { RecoveryRecord } from "@oah/core";
import { describe, expect, it } from "vitest";
import { eventDataText, eventTypeClass } from "../src/lib/run-detail/events";
import { cancelNotice, requeueNotice } from "../src/lib/run-detail/notices";
import { lastOutcomeText, recoveryActed, recoveryAttemptsText } from "../src/lib/run-detail/recovery";
import { runRefreshMs } from "../src/lib/run-detail/refresh";
import { timelineEntries } from "../src/lib/run-detail/timeline";
import { run } from "./runs";

const recovery: RecoveryRecord = {
  state: "quarantined",
  strategy: "requeue_running",
  attempts: 3,
  maxAttempts: 3,
  lastOutcome: { from: "running", to: "failed" },
  lastRecoveredBy: "host-a",
  lastRecoveredAt: "2026-01-31T12:01:00.000Z",
  reason: "max_attempts_exhausted",
  manualRequeueCount: 0,
  lastManualRequeueAt: null,
  lastManualRequeueBy: null,
};

describe("the timeline", () => {
  const now = Date.parse("2026-01-31T12:00:08.000Z");

  it("of an ended run says how long it waited and ran", () => {
    expect(timelineEntries(run(), now)).toEqual([
      { label: "created", at: "2026-01-31T12:00:00.000Z" },
      { label: "started", at: "2026-01-31T12:00:02.000Z", note: "waited 2.00 s" },
      { label: "heartbeat", at: "2026-01-31T12:00:05.000Z", note: undefined },
      { label: "ended", at: "2026-01-31T12:00:12.000Z", note: "ran 10.0 s" },
    ]);
  });

  it("of a running run ages its heartbeat and shows a requested cancel", () => {
    const running = run({
      status: "running",
      endedAt: null,
      cancelRequestedAt: "2026-01-31T12:00:07.000Z",
    });
    expect(timelineEntries(running, now)).toEqual([
      { label: "created", at: "2026-01-31T12:00:00.000Z" },
      { label: "started", at: "2026-01-31T12:00:02.000Z", note: "waited 2.00 s" },
      { label: "heartbeat", at: "2026-01-31T12:00:05.000Z", note: "3.00 s ago" },
      { label: "cancel requested", at: "2026-01-31T12:00:07.000Z" },
      { label: "ended", at: null, note: undefined },
    ]);
  });

  it("of a queued run has only its creation", () => {
    const queued = run({ status: "queued", startedAt: null, heartbeatAt: null, endedAt: null });
    expect(timelineEntries(queued, now).filter((e) => e.at !== null)).toEqual([
      { label: "created", at: "2026-01-31T12:00:00.000Z" },
    ]);
  });
});

describe("the recovery facts", () => {
  it.each<[string, Parameters<typeof run>[0], boolean, string, string]>([
    ["never acted", {}, false, "—", "—"],
    ["a count only", { metadata: { recoveryAttempts: 2 } }, true, "2", "—"],
    ["a state only", { recoveryState: "requeued" }, true, "—", "—"],
    ["a record", { recoveryState: "quarantined", metadata: { recovery } }, true, "3 / 3", "running → failed"],
  ])("%s", (_, change, acted, attempts, outcome) => {
    const r = run(change);
    expect(recoveryActed(r)).toBe(acted);
    expect(recoveryAttemptsText(r)).toBe(attempts);
    expect(lastOutcomeText(r)).toBe(outcome);
  });
});

describe("how often the run page refreshes", () => {
  it.each<[Parameters<typeof runRefreshMs>[0], number]>([
    [undefined, 1_500],
    ["queued", 1_500],
    ["running", 1_500],
    ["waiting_tool", 1_500],
    ["completed", 6_000],
    ["failed", 6_000],
    ["cancelled", 6_000],
    ["timed_out", 6_000],
  ])("%s: every %d ms", (status, ms) => {
    expect(runRefreshMs(status)).toBe(ms);
  });
});

describe("events", () => {
  it.each([
    ["run.failed", "event-failed"],
    ["run.waiting_tool", "event-waiting_tool"],
    ["plain", "event-other"],
  ])("%s is drawn as %s", (type, className) => {
    expect(eventTypeClass(type)).toBe(className);
  });

  it("show their data on one line and in full", () => {
    expect(eventDataText({ a: 1 })).toEqual({ line: '{"a":1}', full: '{\n  "a": 1\n}' });
    expect(eventDataText(null)).toEqual({ line: "", full: undefined });
  });
});

describe("what the run page's actions tell", () => {
  it.each([
    ["cancelled", "Cancelled."],
    ["running", "Cancel requested; the run is being aborted where it runs (status running)."],
  ] as const)("a cancel that left the run %s", (status, text) => {
    expect(cancelNotice({ status })).toEqual({ kind: "ok", text });
  });

  it("a requeue", () => {
    expect(requeueNotice({ previousStatus: "cancelled" })).toEqual({
      kind: "ok",
      text: "Requeued (was cancelled).",
    });
  });
});
