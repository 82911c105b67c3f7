// @module-tag unit

import { describe, expect, it } from "vitest";
import { AUDIT_PARAMS_MAX_BYTES, auditedCall, boundedMessage } from "../src/audited-call";

const RUN = "run_01KB0000000000000000000000";
const huge = "x".repeat(1_048_576);

describe("what the audit log keeps of a call", () => {
  it.each([
    [
      "a requeue: its run, who it claims asks, and whether cancelled runs go too",
      "run.requeue",
      { runId: RUN, requestedBy: "ada", includeCancelled: true },
      { target: RUN, params: { runId: RUN, requestedBy: "ada", includeCancelled: true } },
    ],
    [
      "a tool's result: its name, never the client's output",
      "run.tool_result",
      { runId: RUN, name: "approve", output: { secret: huge } },
      { target: RUN, params: { runId: RUN, name: "approve" } },
    ],
    [
      "a sign-in: nothing of what a caller adds to it",
      "console.sign_in",
      { token: "s3cret", note: huge },
      { target: null, params: null },
    ],
    [
      "a field no action has: left out",
      "host.drain",
      { hostId: "h-1", note: huge },
      { target: "h-1", params: { hostId: "h-1" } },
    ],
    [
      "many runs: their count as the target",
      "run.requeue_many",
      { runIds: [RUN, RUN] },
      { target: "2 runs", params: { runIds: [RUN, RUN] } },
    ],
    [
      "a bulk start: its filter and options",
      "bulk.start",
      { action: "cancel", filter: { workspaceId: "w" }, dryRun: false },
      { target: null, params: { action: "cancel", filter: { workspaceId: "w" } } },
    ],
    ["no input", "fleet.rollout", undefined, { target: null, params: null }],
  ] as const)("%s", (_name, action, input, kept) => {
    expect(auditedCall(action, input)).toEqual({ action, ...kept });
  });

  it("keeps parameters past the bound as their size and the start of their JSON, and a long target cut", () => {
    // A refused requeue: its input was never checked by its schema.
    const call = auditedCall("run.requeue", { runId: huge, requestedBy: huge });
    const json = JSON.stringify({ runId: huge, requestedBy: huge });
    expect(call.target).toBe("x".repeat(256));
    expect(call.params).toEqual({ truncated: true, bytes: json.length, head: json.slice(0, 1_024) });
    expect(Buffer.byteLength(JSON.stringify(call), "utf8")).toBeLessThan(AUDIT_PARAMS_MAX_BYTES);
    const atBound = { hostId: "h".repeat(AUDIT_PARAMS_MAX_BYTES - '{"hostId":""}'.length) };
    expect(auditedCall("host.cordon", atBound).params).toEqual(atBound);
    expect(auditedCall("host.cordon", { hostId: `${atBound.hostId}h` }).params).toMatchObject({
      truncated: true,
    });
  });

  it("keeps text a store can hold: a lone surrogate becomes U+FFFD, even where the bound cuts a pair", () => {
    expect(auditedCall("host.cordon", { hostId: "a\uD800b" }).params).toEqual({ hostId: "a\uFFFDb" });
    const pairs = "😀".repeat(AUDIT_PARAMS_MAX_BYTES);
    const cut = auditedCall("host.cordon", { hostId: pairs }).params as { head: string };
    expect(cut.head).toMatch(/^\{"hostId":"(😀)+\uFFFD?$/u);
    expect(boundedMessage("m".repeat(5_000))).toHaveLength(1_024);
  });

  it("keeps nothing of an input nested deeper than JSON can be written", () => {
    let deep: unknown = "end";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(auditedCall("jam.repair", { kind: "lost_run", sessionIds: deep }).params).toEqual({
      truncated: true,
      bytes: null,
      head: "",
    });
  });
});
