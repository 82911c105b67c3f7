// @module-tag unit

import type { DeadLetterGroup } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { actingCount, outcomeRows, percentDone } from "../src/lib/bulk/report";
import { filtersToInput } from "../src/lib/storage-filters/view";
import { deadLetterView, storageHref } from "../src/lib/storage-links";

describe("a bulk action's report", () => {
  it("lists what the action does first, then the refusals, the larger first, with their examples", () => {
    const dry = {
      matched: 9,
      outcomes: { run_requeue_invalid_status: 2, requeued: 3, run_requeue_not_supported: 4 },
      examples: { requeued: ["run_a"], run_requeue_not_supported: ["run_b"] },
    };
    expect(outcomeRows("requeue", dry.outcomes, dry.examples)).toEqual([
      { outcome: "requeued", count: 3, acts: true, examples: ["run_a"] },
      { outcome: "run_requeue_not_supported", count: 4, acts: false, examples: ["run_b"] },
      { outcome: "run_requeue_invalid_status", count: 2, acts: false, examples: [] },
    ]);
    expect(actingCount("requeue", dry)).toBe(3);
    expect(
      actingCount("cancel", {
        matched: 6,
        outcomes: { cancelled: 2, cancel_requested: 1, run_already_ended: 3 },
        examples: {},
      }),
    ).toBe(3);
  });

  it("says how far a job is, an empty one being done", () => {
    expect(percentDone({ done: 0, total: 0 })).toBe(100);
    expect(percentDone({ done: 1, total: 3 })).toBe(33);
    expect(percentDone({ done: 20_500, total: 20_500 })).toBe(100);
  });

  it("finds a dead-letter group's runs by the Storage filter its requeue acts on", () => {
    const group: DeadLetterGroup = {
      reason: "max_attempts_exhausted",
      errorCode: "worker_recovery_failed",
      workspaceId: "ws-1",
      count: 2,
      oldestAt: "2026-01-01T00:00:00.000Z",
      newestAt: "2026-01-01T00:00:00.000Z",
      lastExecutions: [],
    };
    const view = deadLetterView(group);
    expect(storageHref(view)).toBe(
      "/storage?errorCode=worker_recovery_failed&recoveryState=quarantined&recoveryReason=max_attempts_exhausted&workspaceId=ws-1",
    );
    expect(filtersToInput(view)).toEqual({
      errorCode: ["worker_recovery_failed"],
      recoveryState: ["quarantined"],
      recoveryReason: ["max_attempts_exhausted"],
      workspaceId: "ws-1",
    });
    expect(filtersToInput(deadLetterView({ ...group, errorCode: null }))).not.toHaveProperty("errorCode");
  });
});
