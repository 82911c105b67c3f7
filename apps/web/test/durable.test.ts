// @module-tag unit

import type { RunCheckpoint, RunEvent, RunStep } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { requeueFromInput, resumeChoice } from "../src/lib/durable/requeue-from";
import { avoidedText, resumeLines } from "../src/lib/durable/resumes";
import { checkpointsByStep, checkpointText, forkableSteps } from "../src/lib/durable/steps";

const step = (id: number, kind: RunStep["kind"] = "tool") => ({ id, kind });
const checkpoint = (id: number, stepId: number | null, attempt = 1): RunCheckpoint => ({
  id,
  stepId,
  attempt,
  at: "2026-01-31T12:00:00.000Z",
});
const event = (id: number, type: RunEvent["type"], data: RunEvent["data"]): RunEvent => ({
  id,
  runId: "run_01JABCDEFGHJKMNPQRSTVWXYZ0",
  type,
  at: "2026-01-31T12:00:00.000Z",
  data,
});

describe("the checkpoints on the steps", () => {
  it("sit after the step they cover, those before every step first", () => {
    const byStep = checkpointsByStep([
      checkpoint(1, null),
      checkpoint(2, 11),
      checkpoint(3, 11),
      checkpoint(4, 12),
    ]);
    expect([...byStep.entries()].map(([at, cs]) => [at, cs.map((c) => c.id)])).toEqual([
      [0, [1]],
      [11, [2, 3]],
      [12, [4]],
    ]);
  });

  it("a fork's inherited ones, which cover its source's steps, before every step of its own", () => {
    const byStep = checkpointsByStep([checkpoint(1, 3, 0), checkpoint(2, 5, 0), checkpoint(3, 11)]);
    expect([...byStep.entries()].map(([at, cs]) => [at, cs.map((c) => c.id)])).toEqual([
      [0, [1, 2]],
      [11, [3]],
    ]);
  });

  it.each<[string, RunCheckpoint[], string]>([
    ["one", [checkpoint(1, 11)], "checkpoint · attempt 1"],
    ["two attempts'", [checkpoint(1, 11), checkpoint(2, 11, 2)], "2 checkpoints · attempt 1, 2"],
    [
      "a fork's inherited",
      [checkpoint(1, 3, 0), checkpoint(2, 5, 0)],
      "2 checkpoints · from the run it was forked from",
    ],
  ])("say whose they are: %s", (_, checkpoints, text) => {
    expect(checkpointText(checkpoints)).toBe(text);
  });
});

describe('"Run again from here"', () => {
  const steps = [step(10), step(11), step(12, "system"), step(13), step(14, "model")];

  it("is on each step after the first one a checkpoint covers, never on the system's records", () => {
    expect([...forkableSteps(steps, [checkpoint(1, 11), checkpoint(2, 13)])]).toEqual([13, 14]);
    expect([...forkableSteps(steps, [checkpoint(1, 10)])]).toEqual([11, 13, 14]);
  });

  it("is on no step of a run without checkpoints, or with only one before every step", () => {
    expect(forkableSteps(steps, []).size).toBe(0);
    expect(forkableSteps(steps, [checkpoint(1, null, 0)]).size).toBe(0);
  });
});

describe("the resumes", () => {
  const avoided = { steps: { tool: 2, model: 1 }, modelTokens: 1234 };

  it("say what they did not do again", () => {
    expect(avoidedText(avoided)).toBe("Not done again: 2 tool steps, 1 model call, 1,234 model tokens.");
    expect(avoidedText({ steps: { hook: 1 }, modelTokens: 0 })).toBe("Not done again: 1 hook.");
    expect(avoidedText({ steps: {}, modelTokens: 0 })).toBe("Not done again: no completed step.");
  });

  it("say from which step, after what, and the step done again", () => {
    const lines = resumeLines([
      event(1, "run.queued", { seq: 1 }),
      event(2, "run.requeued", { reason: "stale_running" }),
      event(3, "run.resumed", {
        fromCheckpoint: true,
        fromStep: 12,
        attempt: 2,
        avoided,
        interrupted: { stepId: 13, kind: "tool", name: "shell", onInterrupt: "rerun" },
      }),
      // A parked run's resume is not one from a checkpoint.
      event(4, "run.resumed", { parked: true }),
      event(5, "run.requeued", { reason: "manual_operator_requeue", fromStart: false }),
      event(6, "run.resumed", { fromCheckpoint: true, fromStep: null, attempt: 3, avoided }),
    ]);
    expect(lines.map(({ eventId, text, rerun }) => ({ eventId, text, rerun }))).toEqual([
      {
        eventId: 3,
        text: "Resumed after step #12 following recovery (attempt 2)",
        rerun: "step #13 (shell) was in flight: done again.",
      },
      {
        eventId: 6,
        text: "Resumed from a checkpoint before its first step following a manual requeue (attempt 3)",
        rerun: null,
      },
    ]);
  });

  it("of a fork say it went on from its source's checkpoint", () => {
    const [line] = resumeLines([
      event(1, "run.resumed", {
        fromCheckpoint: true,
        fromStep: null,
        attempt: 1,
        avoided,
        forkedFrom: { runId: "run_01JSOURCE00000000000000000", stepId: 12 },
      }),
    ]);
    expect(line?.text).toBe(
      "Went on from the checkpoint before step #12 of the run it was forked from (attempt 1)",
    );
  });
});

describe("a requeue's choice", () => {
  it("names the step the last checkpoint covers, or is no choice without one", () => {
    expect(resumeChoice([checkpoint(1, 11), checkpoint(2, 12)])).toBe(
      "Resume after step #12, its last checkpoint",
    );
    expect(resumeChoice([checkpoint(1, null)])).toBe(
      "Resume from its last checkpoint (before its first step)",
    );
    expect(resumeChoice([])).toBeNull();
  });

  it("sends fromStart only to start over", () => {
    expect(requeueFromInput("start")).toEqual({ fromStart: true });
    expect(requeueFromInput("checkpoint")).toEqual({});
  });
});
