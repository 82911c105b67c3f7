// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  canTransition,
  checkManualRequeue,
  OahError,
  RUN_STATUSES,
  requireWriteTarget,
  STATUS_WRITES,
  type StatusWrite,
  type TransitionKind,
  UNWRITTEN_TRANSITIONS,
  writeTarget,
} from "../src";

const writes = Object.entries(STATUS_WRITES) as [string, StatusWrite][];
const pairsOf = (write: StatusWrite) => write.from.flatMap((from) => write.to.map((to) => `${from}→${to}`));

describe("the stores' status writes against the transition table", () => {
  it.each(writes)("%s makes only transitions the table allows", (_name, write) => {
    for (const from of write.from) {
      for (const to of write.to) expect(canTransition(from, to, write.kind), `${from}→${to}`).toBe(true);
    }
  });

  it.each(["execution", "requeue"] as TransitionKind[])(
    "every %s transition the table allows is made by some write, but the documented ones",
    (kind) => {
      const written = new Set(writes.filter(([, w]) => w.kind === kind).flatMap(([, w]) => pairsOf(w)));
      const unwritten = new Set(
        kind === "execution" ? UNWRITTEN_TRANSITIONS.map(([from, to]) => `${from}→${to}`) : [],
      );
      const allowed = RUN_STATUSES.flatMap((from) =>
        RUN_STATUSES.filter((to) => canTransition(from, to, kind)).map((to) => `${from}→${to}`),
      );
      expect([...written].sort()).toEqual(allowed.filter((pair) => !unwritten.has(pair)).sort());
    },
  );

  it("a manual requeue is allowed only from the statuses its write moves runs from", () => {
    for (const status of RUN_STATUSES) {
      const check = checkManualRequeue(
        {
          status,
          errorCode: "worker_recovery_failed",
          recoveryState: "quarantined",
          metadata: { recoveryAttempts: 1 },
          hasSession: true,
          cancelRequested: false,
        },
        true,
      );
      const from: readonly string[] = STATUS_WRITES.manualRequeue.from;
      expect(check.ok, status).toBe(from.includes(status));
    }
  });

  it("names the one status of a write that sets one, and refuses to for finish", () => {
    expect(writeTarget("start")).toBe("running");
    expect(writeTarget("manualRequeue")).toBe("queued");
    expect(() => writeTarget("finish")).toThrow(/more than one status/);
  });

  it("refuses a target status its write may not set, with invalid_run_transition", () => {
    expect(() => requireWriteTarget("finish", "completed")).not.toThrow();
    expect(() => requireWriteTarget("finish", "timed_out")).not.toThrow();
    for (const to of ["queued", "running", "waiting_tool"] as const) {
      try {
        requireWriteTarget("finish", to);
        expect.unreachable(`finish → ${to} was allowed`);
      } catch (error) {
        expect(error).toBeInstanceOf(OahError);
        expect((error as OahError).code).toBe("invalid_run_transition");
        expect((error as OahError).status).toBe(409);
      }
    }
  });
});
