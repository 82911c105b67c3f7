// @module-tag unit

import { describe, expect, it } from "vitest";
import { failureNotice, noticeClass } from "../src/lib/notice";

describe("notices", () => {
  it.each([
    [
      { errorCode: "run_requeue_invalid_status", message: "nope" },
      "Requeue refused: run_requeue_invalid_status — nope",
    ],
    [{ errorCode: null, message: "fetch failed" }, "Requeue refused: error — fetch failed"],
  ])("a failure %j", (facts, text) => {
    expect(failureNotice("Requeue refused", facts)).toEqual({ kind: "error", text });
  });

  it.each([
    ["ok", "notice notice-ok"],
    ["error", "notice notice-error"],
  ] as const)("a notice of kind %s is drawn as %s", (kind, className) => {
    expect(noticeClass({ kind, text: "" })).toBe(className);
  });
});
