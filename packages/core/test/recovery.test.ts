// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  type ActiveStatus,
  checkManualRequeue,
  decideStaleRunRecovery,
  type OnInterrupt,
  type RecoveryDecision,
  type RecoveryStrategy,
  recordManualRequeue,
  recordRecovery,
  type StaleRunAction,
} from "../src";

type Env = {
  queue?: boolean;
  session?: boolean;
  cancel?: boolean;
  alive?: boolean;
  resumable?: boolean;
  interrupted?: OnInterrupt;
};
type Row = [RecoveryStrategy, ActiveStatus, number, Env, StaleRunAction];

const requeue: RecoveryDecision = { action: "requeue", state: "requeued", reason: "automatic_requeue" };
const failClosed: RecoveryDecision = { action: "fail", state: "failed", reason: "fail_closed" };
const quarantine = (reason: Extract<RecoveryDecision, { action: "fail" }>["reason"]): RecoveryDecision => ({
  action: "fail",
  state: "quarantined",
  reason,
});
const cancel: StaleRunAction = { action: "cancel" };
const wait: StaleRunAction = { action: "wait" };

// strategy, status, recoveryAttempts so far, environment, decision (docs/spec.md §7 and §13, max attempts 3)
const TABLE: Row[] = [
  ["fail", "running", 0, {}, failClosed],
  ["fail", "waiting_tool", 0, {}, failClosed],
  ["fail", "running", 5, {}, failClosed],
  ["requeue_running", "running", 0, {}, requeue],
  ["requeue_running", "running", 2, {}, requeue],
  ["requeue_running", "running", 3, {}, quarantine("max_attempts_exhausted")],
  // A held wait goes on into the same wait from its checkpoint, whichever requeue strategy; one
  // without a checkpoint to resume from is for a person.
  ["requeue_running", "waiting_tool", 0, {}, requeue],
  [
    "requeue_running",
    "waiting_tool",
    0,
    { resumable: false },
    quarantine("waiting_tool_manual_resume_required"),
  ],
  ["requeue_all", "waiting_tool", 0, { resumable: false }, quarantine("waiting_tool_manual_resume_required")],
  ["requeue_running", "waiting_tool", 3, {}, quarantine("max_attempts_exhausted")],
  // A command in flight runs again by default; with onInterrupt: fail, a person decides.
  ["requeue_running", "running", 0, { interrupted: "rerun" }, requeue],
  ["requeue_running", "running", 0, { interrupted: "fail" }, quarantine("step_interrupted")],
  ["requeue_all", "running", 1, { interrupted: "fail" }, quarantine("step_interrupted")],
  ["requeue_all", "running", 3, { interrupted: "rerun" }, quarantine("max_attempts_exhausted")],
  ["fail", "running", 0, { interrupted: "fail" }, failClosed],
  ["requeue_running", "running", 0, { interrupted: "fail", cancel: true }, cancel],
  ["requeue_running", "running", 0, { queue: false }, quarantine("requeue_unavailable")],
  ["requeue_running", "running", 0, { session: false }, quarantine("session_missing")],
  ["requeue_all", "running", 0, {}, requeue],
  ["requeue_all", "waiting_tool", 0, {}, requeue],
  ["requeue_all", "waiting_tool", 3, {}, quarantine("max_attempts_exhausted")],
  ["requeue_all", "waiting_tool", 1, { queue: false }, quarantine("requeue_unavailable")],
  // A requested cancel is honoured whatever the strategy, and uses nothing of the budget.
  ["requeue_running", "running", 0, { cancel: true }, cancel],
  ["requeue_running", "running", 3, { cancel: true }, cancel],
  ["requeue_running", "waiting_tool", 0, { cancel: true }, cancel],
  ["requeue_all", "waiting_tool", 0, { cancel: true }, cancel],
  ["fail", "running", 0, { cancel: true }, cancel],
  ["requeue_running", "running", 0, { cancel: true, queue: false }, cancel],
  // Nothing while the host that executes the run still lists it in its live lease.
  ["requeue_running", "running", 0, { alive: true }, wait],
  ["requeue_all", "waiting_tool", 3, { alive: true }, wait],
  ["fail", "running", 0, { alive: true }, wait],
  ["requeue_running", "running", 0, { alive: true, cancel: true }, wait],
];

describe("stale run recovery decisions", () => {
  it.each(TABLE)("%s, %s after %i requeues %j → %j", (strategy, status, attempts, env, expected) => {
    const decision = decideStaleRunRecovery(
      {
        status,
        recoveryAttempts: attempts,
        cancelRequested: env.cancel ?? false,
        executionAlive: env.alive ?? false,
        queueAvailable: env.queue ?? true,
        hasSession: env.session ?? true,
        resumable: env.resumable ?? true,
        interrupted: env.interrupted ?? null,
      },
      { strategy, maxAttempts: 3 },
    );
    expect(decision).toEqual(expected);
  });
});

describe("recovery metadata", () => {
  const at = new Date("2026-01-02T03:04:05.000Z");
  const policy = { strategy: "requeue_running" as const, maxAttempts: 3 };

  it("counts requeues in recoveryAttempts and the record together", () => {
    const once = recordRecovery({ other: "kept" }, requeue, { policy, from: "running", by: "host-a", at });
    expect(once).toEqual({
      other: "kept",
      recoveryAttempts: 1,
      recovery: {
        state: "requeued",
        strategy: "requeue_running",
        attempts: 1,
        maxAttempts: 3,
        lastOutcome: { from: "running", to: "queued" },
        lastRecoveredBy: "host-a",
        lastRecoveredAt: at.toISOString(),
        reason: "automatic_requeue",
        manualRequeueCount: 0,
        lastManualRequeueAt: null,
        lastManualRequeueBy: null,
      },
    });
    const twice = recordRecovery(once, requeue, { policy, from: "running", by: "host-b", at });
    expect(twice.recoveryAttempts).toBe(2);
    expect(twice.recovery?.attempts).toBe(2);
  });

  it("quarantine sets the dead letter and does not count as a requeue", () => {
    const before = { recoveryAttempts: 3 };
    const after = recordRecovery(before, quarantine("max_attempts_exhausted"), {
      policy,
      from: "running",
      by: "h",
      at,
    });
    expect(after.recoveryAttempts).toBe(3);
    expect(after.recovery).toMatchObject({
      state: "quarantined",
      reason: "max_attempts_exhausted",
      lastOutcome: { from: "running", to: "failed" },
      deadLetter: { status: "quarantined", reason: "max_attempts_exhausted", at: at.toISOString() },
    });
  });

  it("a fail-closed recovery leaves no dead letter", () => {
    const after = recordRecovery({}, failClosed, {
      policy: { strategy: "fail", maxAttempts: 3 },
      from: "waiting_tool",
      by: "h",
      at,
    });
    expect(after.recovery).toMatchObject({ state: "failed", strategy: "fail", reason: "fail_closed" });
    expect(after.recovery).not.toHaveProperty("deadLetter");
  });
});

describe("manual requeue", () => {
  const base = {
    errorCode: null,
    recoveryState: null,
    metadata: {},
    hasSession: true,
    cancelRequested: false,
  };
  const managed = { ...base, errorCode: "worker_recovery_failed" };
  it.each([
    ["queued", base, "run_requeue_invalid_status"],
    ["running", base, "run_requeue_invalid_status"],
    ["waiting_tool", base, "run_requeue_invalid_status"],
    ["completed", { ...base, errorCode: "worker_recovery_failed" }, "run_requeue_invalid_status"],
    ["cancelled", base, "run_requeue_invalid_status"],
    ["failed", base, "run_requeue_not_supported"],
    ["failed", { ...base, errorCode: "tool_failed" }, "run_requeue_not_supported"],
    ["timed_out", { ...base, errorCode: "run_timed_out" }, "run_requeue_not_supported"],
    ["failed", { ...base, errorCode: "worker_recovery_failed" }, null],
    ["failed", { ...base, recoveryState: "quarantined" }, null],
    ["timed_out", { ...base, metadata: { recoveryAttempts: 1 } }, null],
    [
      "failed",
      { ...base, errorCode: "worker_recovery_failed", hasSession: false },
      "run_requeue_unavailable",
    ],
  ] as const)("%s %j → %s", (status, facts, code) => {
    const check = checkManualRequeue({ status, ...facts } as never);
    expect(check.ok ? null : check.code).toBe(code);
  });

  // A run someone asked to cancel starts again only when the operator says so.
  it.each([
    ["cancelled", { ...base, cancelRequested: true }, false, "run_requeue_invalid_status"],
    ["cancelled", { ...base, cancelRequested: true }, true, null],
    ["cancelled", { ...base, cancelRequested: true, hasSession: false }, true, "run_requeue_unavailable"],
    ["failed", { ...managed, cancelRequested: true }, false, "run_requeue_cancel_requested"],
    ["failed", { ...managed, cancelRequested: true }, true, null],
    ["failed", { ...base, cancelRequested: true }, true, "run_requeue_not_supported"],
    ["completed", base, true, "run_requeue_invalid_status"],
    ["running", { ...base, cancelRequested: true }, true, "run_requeue_invalid_status"],
  ] as const)("%s %j, includeCancelled %s → %s", (status, facts, includeCancelled, code) => {
    const check = checkManualRequeue({ status, ...facts } as never, includeCancelled);
    expect(check.ok ? null : check.code).toBe(code);
  });

  it("gives a fresh budget, counts the requeue, lifts the dead letter", () => {
    const at = new Date("2026-02-03T04:05:06.000Z");
    const quarantined = recordRecovery({ recoveryAttempts: 3 }, quarantine("max_attempts_exhausted"), {
      policy: { strategy: "requeue_running", maxAttempts: 3 },
      from: "running",
      by: "host-a",
      at,
    });
    const after = recordManualRequeue(quarantined, {
      from: "failed",
      by: "alice",
      claimedBy: "ada-admin",
      at,
      maxAttempts: 3,
    });
    expect(after.recoveryAttempts).toBe(0);
    expect(after.recovery).toMatchObject({
      state: "requeued",
      strategy: "manual",
      attempts: 0,
      reason: "manual_operator_requeue",
      manualRequeueCount: 1,
      lastManualRequeueBy: "alice",
      lastManualRequeueClaimedBy: "ada-admin",
      lastManualRequeueAt: at.toISOString(),
      lastRecoveredBy: "host-a",
      lastOutcome: { from: "failed", to: "queued" },
    });
    expect(after.recovery).not.toHaveProperty("deadLetter");
    // The next requeue's caller claims nobody: the last claim is not its.
    const again = recordManualRequeue(after, {
      from: "failed",
      by: "bob",
      claimedBy: null,
      at,
      maxAttempts: 3,
    });
    expect(again.recovery?.manualRequeueCount).toBe(2);
    expect(again.recovery).not.toHaveProperty("lastManualRequeueClaimedBy");
  });
});
