// @module-tag unit

import { describe, expect, it } from "vitest";
import { auditQuery, FIRST_PAGE, filtered, nextPage, previousPage } from "../src/lib/audit/paging";

describe("the audit view's pages", () => {
  it("walks forward by each page's cursor, back by the ones it kept, and starts over on new filters", () => {
    const second = nextPage(FIRST_PAGE, "120");
    const third = nextPage(second, "70");
    expect(auditQuery(third)).toEqual({ cursor: "70", limit: 50 });
    expect(auditQuery(previousPage(third))).toEqual({ cursor: "120", limit: 50 });
    expect(auditQuery(previousPage(previousPage(third)))).toEqual({ limit: 50 });
    expect(previousPage(FIRST_PAGE)).toBe(FIRST_PAGE);
    const byAlice = filtered(third, { actor: " alice " });
    expect(auditQuery(byAlice)).toEqual({ actor: "alice", limit: 50 });
    expect(auditQuery(filtered(byAlice, { action: "run.requeue" }))).toEqual({
      actor: "alice",
      action: "run.requeue",
      limit: 50,
    });
  });
});
