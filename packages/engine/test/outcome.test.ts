// @module-tag unit

import { describe, expect, it } from "vitest";
import type { AbortReason } from "../src";
import { outcomeOf, RunFailure } from "../src";

const ok = { ok: true as const, output: { answer: 42 } };
const failure = { ok: false as const, error: new RunFailure("tool_failed", "exit 1") };
const crash = { ok: false as const, error: new TypeError("undefined is not a function") };

const TABLE: [string, typeof ok | typeof failure | typeof crash, AbortReason | undefined, unknown][] = [
  ["result, no abort", ok, undefined, { status: "completed", output: { answer: 42 } }],
  ["RunFailure", failure, undefined, { status: "failed", errorCode: "tool_failed", errorMessage: "exit 1" }],
  [
    "unexpected error",
    crash,
    undefined,
    { status: "failed", errorCode: "executor_failed", errorMessage: "undefined is not a function" },
  ],
  ["cancel wins over a result", ok, { kind: "cancel" }, { status: "cancelled" }],
  ["cancel wins over a failure", failure, { kind: "cancel" }, { status: "cancelled" }],
  [
    "timeout",
    failure,
    { kind: "timeout" },
    { status: "timed_out", errorCode: "run_timed_out", errorMessage: "run exceeded its timeout of 500 ms" },
  ],
  ["fenced: write nothing", ok, { kind: "fenced" }, null],
  ["shutdown: leave it to recovery", failure, { kind: "shutdown" }, null],
];

describe("execution outcome", () => {
  it.each(TABLE)("%s", (_name, settled, abort, expected) => {
    expect(outcomeOf(settled, abort, 500)).toEqual(expected);
  });
});
