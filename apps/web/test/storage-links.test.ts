// @module-tag unit

import { describe, expect, it } from "vitest";
import { EMPTY_FILTERS, type RunFilters } from "../src/lib/storage-filters/view";
import { csvExportHref, sessionHref } from "../src/lib/storage-links";

const view = (change: Partial<RunFilters>): RunFilters => ({ ...EMPTY_FILTERS, ...change });

describe("links to the Storage view", () => {
  it.each<[string, RunFilters | undefined, string]>([
    ["a b", undefined, "/storage?sessionId=a%20b"],
    [
      "s-2",
      view({ status: ["failed"], sessionId: "s-1", limit: 25 }),
      "/storage?status=failed&sessionId=s-2&limit=25",
    ],
    // A run filter would leave only that run: it goes.
    ["s-2", view({ runId: "run_01JABCDEFGHJKMNPQRSTVWXYZ0" }), "/storage?sessionId=s-2"],
  ])("of session %s", (sessionId, from, href) => {
    expect(sessionHref(sessionId, from)).toBe(href);
  });

  it.each<[RunFilters, string]>([
    [EMPTY_FILTERS, "/api/storage/runs.csv"],
    [view({ status: ["completed", "failed"], limit: 25 }), "/api/storage/runs.csv?status=completed,failed"],
  ])("of the CSV export", (filters, href) => {
    expect(csvExportHref(filters)).toBe(href);
  });
});
