// @module-tag unit

import { describe, expect, it } from "vitest";
import { runIdSchema, sessionIdSchema, submitRunInput, workspaceIdSchema } from "../src";

describe("submitRunInput", () => {
  it("fills the defaults: script executor, normal priority, enqueue when busy, and no workspace (the session's)", () => {
    expect(submitRunInput.parse({ sessionId: "s", input: { steps: [] } })).toEqual({
      sessionId: "s",
      executor: "script",
      input: { steps: [] },
      priority: "normal",
      ifBusy: "enqueue",
    });
  });

  it("takes every busy-session policy, and refuses another", () => {
    for (const ifBusy of ["enqueue", "reject", "interrupt", "replace"])
      expect(submitRunInput.parse({ sessionId: "s", input: { steps: [] }, ifBusy }).ifBusy).toBe(ifBusy);
    expect(() => submitRunInput.parse({ sessionId: "s", input: { steps: [] }, ifBusy: "rollback" })).toThrow(
      /ifBusy/,
    );
  });

  it.each([
    [{ steps: [{ type: "sleep", ms: 1.5 }] }, /expected int/i],
    [{ steps: [{ type: "shell" }] }, /command/],
    [{ steps: [{ type: "shell", command: "ls", cwd: "/" }] }, /cwd/],
    [{ steps: [{ type: "fail", code: "made_up" }] }, /code/],
    [{ steps: [{ type: "wait_tool" }] }, /name/],
    [{ steps: [{ type: "model" }] }, /prompt/],
    [{ steps: [{ type: "hook", command: "" }] }, /command/],
    [{ steps: [{ type: 7 }] }, /unknown step type 7/],
    [{ steps: "none" }, /steps/],
    [{}, /steps/],
  ])("refuses input %j", (input, message) => {
    const result = submitRunInput.safeParse({ sessionId: "s", input });
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n");
    expect(messages).toMatch(message);
  });

  it("accepts every supported step", () => {
    const steps = [
      { type: "sleep", ms: 0 },
      { type: "shell", command: "true", timeoutMs: 5, allowFailure: true },
      { type: "wait_tool", name: "approve" },
      { type: "model", prompt: "hello", system: "be brief" },
      { type: "hook", command: "true", timeoutMs: 100 },
      { type: "fail", code: "tool_failed", message: "m" },
      { type: "output", value: { nested: [1, "two", null] } },
    ];
    const parsed = submitRunInput.parse({ sessionId: "s", input: { steps } });
    expect(parsed.executor === "script" && parsed.input.steps).toEqual(steps);
  });
});

describe("the agent executor's input", () => {
  it("fills its defaults", () => {
    expect(
      submitRunInput.parse({ sessionId: "s", executor: "agent", input: { prompt: "hi" } }),
    ).toMatchObject({
      executor: "agent",
      input: { prompt: "hi", tools: { shell: false, client: [] }, maxSteps: 16 },
    });
  });

  it.each([
    [{ executor: "agent", input: { steps: [] } }, /prompt/],
    [{ executor: "agent", input: { prompt: "x", tools: { client: [{ name: "shell" }] } } }, /built-in/],
    [{ executor: "agent", input: { prompt: "x", tools: { client: [{ name: "has space" }] } } }, /tool name/],
    [{ executor: "agent", input: { prompt: "x", maxSteps: 0 } }, /maxSteps/],
    [{ executor: "robot", input: {} }, /unknown executor/],
  ])("refuses %j", (body, message) => {
    const result = submitRunInput.safeParse({ sessionId: "s", ...body });
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n");
    expect(messages).toMatch(message);
  });
});

describe("ids", () => {
  it.each(["a", "A-z_0.9:x", "x".repeat(128)])("session id %s is valid", (id) => {
    expect(sessionIdSchema.safeParse(id).success).toBe(true);
  });
  it.each(["", "x".repeat(129), "a b", "a/b", "é"])("session id %j is refused", (id) => {
    expect(sessionIdSchema.safeParse(id).success).toBe(false);
  });
  it.each(["..", ".", ".hidden", "a/b", ""])("workspace id %j is refused", (id) => {
    expect(workspaceIdSchema.safeParse(id).success).toBe(false);
  });
  it("run ids are run_ and a ULID", () => {
    expect(runIdSchema.safeParse("run_01KB0000000000000000000000").success).toBe(true);
    expect(runIdSchema.safeParse("run_01KB000000000000000000000U").success).toBe(false);
  });
});
