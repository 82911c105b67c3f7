// @module-tag unit

import { describe, expect, it } from "vitest";
import { safeNextPath } from "../src/lib/next-path";

describe("where sign-in returns to", () => {
  it.each([
    [
      "/storage?status=failed,timed_out&recoveryState=quarantined",
      "/storage?status=failed,timed_out&recoveryState=quarantined",
    ],
    ["/runs/run_01ABC", "/runs/run_01ABC"],
    ["/storage?sessionId=a%20b#pool", "/storage?sessionId=a%20b#pool"],
    ["/storage/../runs/x", "/runs/x"],
    [undefined, "/storage"],
    ["", "/storage"],
    ["storage", "/storage"],
    ["https://evil.example/", "/storage"],
    ["//evil.example", "/storage"],
    ["/\\evil.example", "/storage"],
    ["/%09/evil.example", "/storage"],
    ["/\t/evil.example", "/storage"],
    ["/%0a/evil.example", "/storage"],
    ["/%2F/evil.example", "/storage"],
    ["/%5Cevil.example", "/storage"],
    ["/\u0000x", "/storage"],
    ["/%E0%A4%A", "/storage"],
    ["/api/trpc/admin.requeue", "/storage"],
    ["/sign-in?next=/storage", "/storage"],
    ["/./api/trpc/x", "/storage"],
  ])("%j → %s", (value, expected) => {
    expect(safeNextPath(value)).toBe(expected);
  });
});
