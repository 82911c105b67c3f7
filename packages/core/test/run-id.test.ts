// @module-tag unit

import { describe, expect, it } from "vitest";
import { newRunId, ulid } from "../src/run-id";

describe("run ids", () => {
  it("are run_ and 26 Crockford characters", () => {
    expect(newRunId()).toMatch(/^run_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("sort in creation order, also within one millisecond", () => {
    const ids = Array.from({ length: 1000 }, () => ulid(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ulid(1_700_000_000_001) > ids[ids.length - 1]!).toBe(true);
  });

  it("draw fresh randomness for each new millisecond, across many refills of the random pool", () => {
    const randomParts = Array.from({ length: 2_000 }, (_, i) => ulid(1_800_000_000_000 + i).slice(10));
    expect(new Set(randomParts).size).toBe(randomParts.length);
  });
});
