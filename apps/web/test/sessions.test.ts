// @module-tag unit

import { JAM_KINDS } from "@oah/core";
import { describe, expect, it } from "vitest";
import { JAM_LABELS } from "../src/lib/sessions/jams";
import { inspectorHref } from "../src/lib/sessions/links";
import { cancelQueuedNotice, repairNotice } from "../src/lib/sessions/notices";

describe("the session inspector and the Health panel", () => {
  it.each([
    ["chat-1", "/sessions/chat-1"],
    ["a:b.c_d-e", "/sessions/a%3Ab.c_d-e"],
  ])("inspects %s at %s", (sessionId, href) => {
    expect(inspectorHref(sessionId)).toBe(href);
  });

  it.each([
    [[], "No queued run to cancel."],
    [["run_1"], "Cancelled 1 queued run."],
    [["run_1", "run_2"], "Cancelled 2 queued runs."],
  ])("a cancel of queued runs %j tells %s", (cancelled, text) => {
    expect(cancelQueuedNotice({ cancelled })).toEqual({ kind: "ok", text });
  });

  it.each([
    [1, 0, "Repaired 1 session, skipped 0."],
    [0, 2, "Repaired 0 sessions, skipped 2."],
  ])("a repair of %i and %i skipped tells %s", (repaired, skipped, text) => {
    expect(repairNotice({ repaired, skipped })).toEqual({ kind: "ok", text });
  });

  it("labels every kind of jam", () => {
    expect(Object.keys(JAM_LABELS).sort()).toEqual([...JAM_KINDS].sort());
  });
});
