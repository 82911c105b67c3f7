// What a checkpoint adds to a step's end in the store alone, in this process: the ends of
// steps of one running run, with the checkpoint an agent's tool answer carries (its message
// appended to the log, its state) and without, alternating, each timed from the call to its
// commit. No model, command, HTTP or worker around it, whose times on a loaded machine are
// far larger than the difference (the checkpoints workload measures those runs too).
import { join } from "node:path";
import { openRunStore, type StoreLocation } from "@oah/store";
import { newRun, REPO_ROOT } from "@oah/testing";
import { percentile, round } from "../stats";

export interface StepEnds {
  samples: number;
  withCheckpointP50Ms: number;
  withoutP50Ms: number;
}

/** Steps ended before the figures count: the statements prepared, the connections open. */
const WARM_UP = 50;

/** A shell call's answer as the agent executor makes it: 400 bytes of output. */
const answer = (i: number) => ({ exitCode: 0, stdout: `${"0".repeat(400)}\n`, stderr: "", call: i });

export async function stepEndsOnce(location: Omit<StoreLocation, "migrationsDir">, samples: number) {
  const store = await openRunStore({ ...location, migrationsDir: join(REPO_ROOT, "drizzle") });
  try {
    const run = newRun("step-ends", { executor: "agent", input: { prompt: "x" } });
    await store.createRun(run);
    const claim = { runId: run.id, token: "bench-step-ends" };
    const started = await store.startRun(claim, "bench-step-ends");
    if (started.kind !== "started") throw new Error(`step ends: the run's start was ${started.kind}`);
    const times: Record<"with" | "without", number[]> = { with: [], without: [] };
    for (let i = 0; i < WARM_UP + samples; i++) {
      for (const kind of i % 2 === 0 ? (["with", "without"] as const) : (["without", "with"] as const)) {
        const stepId = await store.startStep(claim, { kind: "tool", name: "shell" });
        if (stepId === null) throw new Error("step ends: a step's start was refused");
        const output = answer(i);
        const checkpoint =
          kind === "with"
            ? {
                state: { calls: i, pending: [] },
                appended: [{ role: "tool", tool_call_id: `call_${i}`, content: JSON.stringify(output) }],
              }
            : undefined;
        const t = performance.now();
        const ended = await store.finishStep(claim, stepId, { status: "completed", output }, checkpoint);
        const ms = performance.now() - t;
        if (!ended) throw new Error("step ends: a step's end was refused");
        if (i >= WARM_UP) times[kind].push(ms);
      }
    }
    await store.finishRun(claim, { status: "completed", output: null });
    return {
      samples,
      withCheckpointP50Ms: round(percentile(times.with, 50), 3),
      withoutP50Ms: round(percentile(times.without, 50), 3),
    } satisfies StepEnds;
  } finally {
    await store.close();
  }
}
