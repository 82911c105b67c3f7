// @module-tag unit

import type { RecoveryRecord } from "@oah/core";
import { describe, expect, it } from "vitest";
import { FIRST_PAGE, pageText, previousPage } from "../src/lib/runs-panel/paging";
import {
  eligibilityText,
  REQUEUE_BATCH_MAX,
  requeueBatch,
  requeuedNotice,
  requeuePreview,
  requeueTitle,
} from "../src/lib/runs-panel/requeue";
import { attemptsTitle, quarantineReason } from "../src/lib/runs-panel/row";
import { pageSelection, selectionText, withoutRun, withRuns } from "../src/lib/runs-panel/selection";
import { run } from "./runs";

const runs = (count: number, change: Parameters<typeof run>[0] = {}) =>
  Array.from({ length: count }, (_, i) => run({ ...change, id: `run_${i}` }));

const quarantined = run({
  id: "run_q",
  status: "failed",
  recoveryState: "quarantined",
  metadata: {
    recoveryAttempts: 3,
    recovery: { reason: "max_attempts_exhausted" } as RecoveryRecord,
  },
});

describe("the selection", () => {
  const [a, b, c] = runs(3);

  it("adds and takes out runs, and keeps what it had", () => {
    const some = withRuns(new Map(), [a!, b!], true);
    expect([...some.keys()]).toEqual(["run_0", "run_1"]);
    expect([...withRuns(some, [b!, c!], false).keys()]).toEqual(["run_0"]);
    expect([...withoutRun(some, "run_0").keys()]).toEqual(["run_1"]);
    expect([...some.keys()]).toEqual(["run_0", "run_1"]);
  });

  it.each<[string[], "all" | "some" | "none"]>([
    [[], "none"],
    [["run_1"], "some"],
    [["run_0", "run_1", "run_2"], "all"],
    // Runs of other pages do not count for this one.
    [["run_9"], "none"],
  ])("of a page with %j selected: %s", (ids, state) => {
    const selected = new Map(ids.map((id) => [id, run({ id })]));
    expect(pageSelection([a!, b!, c!], selected)).toBe(state);
  });

  it("of an empty page is none", () => {
    expect(pageSelection([], new Map())).toBe("none");
  });

  it.each([
    [0, "No run selected"],
    [1, "1 selected"],
    [12, "12 selected"],
  ])("of %d runs says %s", (size, text) => {
    expect(selectionText(size)).toBe(text);
  });
});

describe("paging", () => {
  it.each<[number, number, number, string]>([
    [1, 50, 0, "page 1"],
    [1, 50, 50, "page 1 · rows 1–50"],
    [2, 25, 25, "page 2 · rows 26–50"],
    [3, 25, 4, "page 3 · rows 51–54"],
    [4, 25, 0, "page 4"],
  ])("page %d of %d rows, %d shown: %s", (page, limit, rows, text) => {
    expect(pageText(page, limit, rows)).toBe(text);
  });

  it("goes back a page, but not before the first", () => {
    expect(previousPage([undefined, "c1", "c2"])).toEqual([undefined, "c1"]);
    expect(previousPage(FIRST_PAGE)).toBe(FIRST_PAGE);
  });
});

describe("a bulk requeue", () => {
  it.each([
    [1, "Requeue 1 run?"],
    [3, "Requeue 3 runs?"],
  ])("of %d is titled %s", (count, title) => {
    expect(requeueTitle(count)).toBe(title);
  });

  it.each([
    [[quarantined, quarantined], "All of them look eligible."],
    [[quarantined, run()], "1 of them look eligible; the API refuses the others and says why."],
    [
      [run(), run({ status: "cancelled" })],
      "0 of them look eligible; the API refuses the others and says why.",
    ],
  ])("says beforehand what the API will refuse (%#)", (selected, text) => {
    expect(eligibilityText(selected)).toBe(text);
  });

  it("sends the API's limit at most, and lists a dozen", () => {
    const many = runs(REQUEUE_BATCH_MAX + 5);
    expect(requeueBatch(many)).toEqual(many.slice(0, REQUEUE_BATCH_MAX).map((r) => r.id));
    expect(requeuePreview(many).listed).toHaveLength(12);
    expect(requeuePreview(many).more).toBe(many.length - 12);
    expect(requeuePreview(runs(3))).toEqual({ listed: runs(3), more: 0 });
  });

  it("of one run that went says so", () => {
    expect(requeuedNotice({ runId: "run_q", previousStatus: "failed" })).toEqual({
      kind: "ok",
      text: "Requeued run_q (was failed).",
    });
  });
});

describe("a run's row", () => {
  it.each([
    [run(), "1 executions started; 0 automatic requeues"],
    [{ ...quarantined, attempt: 4 }, "4 executions started; 3 automatic requeues"],
  ])("titles its attempts (%#)", (r, title) => {
    expect(attemptsTitle(r)).toBe(title);
  });

  it.each([
    [quarantined, "max_attempts_exhausted"],
    [{ ...quarantined, recoveryState: "requeued" as const }, null],
    [run({ recoveryState: "quarantined" }), null],
  ])("spells out why it is quarantined (%#)", (r, reason) => {
    expect(quarantineReason(r)).toBe(reason);
  });
});
