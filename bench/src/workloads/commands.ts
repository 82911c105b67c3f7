// (g) What a command's sandbox costs: runs of one `echo` shell step, one at a time
// (each in a new session), on oah's embedded default, with commands in their
// sandbox (OAH_SHELL=on: the host's namespace stage, setpriv, bwrap, prlimit, then
// /bin/sh) with each network (OAH_STEP_NETWORK on: slirp4netns attached to the
// sandbox's own namespace; off: none; host: the host's), and unconfined
// (OAH_SHELL=unsafe-host: /bin/sh in a process group, as before the sandbox),
// alternating. Figures: the step's own duration as the run records it (spawn to
// exit, output read) and the run's (started_at → ended_at). No peer runs commands.
import { createClient } from "@oah/client";
import { createTempDir, startOah } from "@oah/testing";
import { log } from "../log";
import { percentile, round, type Summary, summarize } from "../stats";
import { cell } from "../table";
import { add, type Workload } from "../workload";

/** The sandbox with OAH_STEP_NETWORK on, off or host; or no sandbox (OAH_SHELL=unsafe-host). */
export type CommandMode = "on" | "off" | "host" | "unsafe-host";
export const COMMAND_MODES: readonly CommandMode[] = ["on", "off", "host", "unsafe-host"];

export interface CommandCostResult {
  mode: CommandMode;
  samples: number;
  stepP50Ms: number;
  stepP99Ms: number;
  runP50Ms: number;
  runP99Ms: number;
}

const WARM_UP = 10;

export async function commandCostOnce(mode: CommandMode, samples: number): Promise<CommandCostResult> {
  const dir = createTempDir("oah-bench-");
  const api = await startOah("oah-api", {
    env: {
      OAH_DATA_DIR: dir.path,
      ...(mode === "unsafe-host" ? { OAH_SHELL: mode } : { OAH_SHELL: "on", OAH_STEP_NETWORK: mode }),
      OAH_WORKERS_MIN: "2",
      OAH_WORKERS_MAX: "2",
      OAH_LOG_LEVEL: "error",
    },
  });
  try {
    const client = createClient({ baseUrl: api.url });
    const steps: number[] = [];
    const runs: number[] = [];
    for (let i = 0; i < samples + WARM_UP; i++) {
      const submitted = await client.submit(`cmd-${i}`, {
        input: { steps: [{ type: "shell", command: "echo hi" }] },
      });
      // Read often: the next sample waits for this one, and the figures come from the run's own times.
      const run = await client.wait(submitted.run.id, { intervalMs: 1 });
      if (run.status !== "completed") throw new Error(`run ${run.id} ended ${run.status}`);
      if (i < WARM_UP) continue;
      const [step] = await client.steps(run.id);
      steps.push((step!.output as { durationMs: number }).durationMs);
      runs.push(Date.parse(run.endedAt!) - Date.parse(run.startedAt!));
    }
    const result = {
      mode,
      samples,
      stepP50Ms: round(percentile(steps, 50), 2),
      stepP99Ms: round(percentile(steps, 99), 2),
      runP50Ms: round(percentile(runs, 50), 2),
      runP99Ms: round(percentile(runs, 99), 2),
    };
    log(
      `  commands ${mode}: step p50 ${result.stepP50Ms} ms, p99 ${result.stepP99Ms} ms; ` +
        `run p50 ${result.runP50Ms} ms, p99 ${result.runP99Ms} ms`,
    );
    return result;
  } finally {
    await api.stop("SIGKILL");
    dir.remove();
  }
}

/** Each mode's rounds, in the order of the repetitions. */
type CommandsRaw = Map<CommandMode, CommandCostResult[]>;

export const commands: Workload<CommandsRaw> = {
  name: "commands",
  alias: "g",
  measures: "what a command's sandbox costs: runs of one `echo` step, with each step network and unconfined",
  systems: { own: "oah embedded (SQLite), 2 slots; no peer runs commands" },
  writes: {
    commands: ["unit", "samples", "byMode", "addedByTheSandbox", "addedByTheNetwork"],
  },
  async run({ plan }) {
    const raw: CommandsRaw = new Map();
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(g) one echo shell step per run, sandboxed (each network) and unconfined, repetition ${rep}/${plan.reps}`,
      );
      for (const mode of COMMAND_MODES) add(raw, mode, await commandCostOnce(mode, plan.commands.samples));
    }
    return raw;
  },
  report(raw, plan) {
    const byMode = Object.fromEntries(
      [...raw].map(([mode, rs]) => [
        mode,
        {
          stepP50Ms: summarize(rs.map((r) => r.stepP50Ms)),
          stepP99Ms: summarize(rs.map((r) => r.stepP99Ms)),
          runP50Ms: summarize(rs.map((r) => r.runP50Ms)),
          runP99Ms: summarize(rs.map((r) => r.runP99Ms)),
        },
      ]),
    );
    const sandboxed = byMode.on!;
    const offline = byMode.off!;
    const host = byMode["unsafe-host"]!;
    const added = (a: Summary, b: Summary) => Math.round((a.median - b.median) * 100) / 100;
    const commands = {
      unit: "ms per run of one `echo` shell step, one run at a time, oah embedded (SQLite), 2 slots",
      samples: plan.commands.samples,
      byMode,
      addedByTheSandbox: {
        stepP50Ms: added(sandboxed.stepP50Ms, host.stepP50Ms),
        stepP99Ms: added(sandboxed.stepP99Ms, host.stepP99Ms),
        runP50Ms: added(sandboxed.runP50Ms, host.runP50Ms),
        runP99Ms: added(sandboxed.runP99Ms, host.runP99Ms),
      },
      addedByTheNetwork: {
        stepP50Ms: added(sandboxed.stepP50Ms, offline.stepP50Ms),
        stepP99Ms: added(sandboxed.stepP99Ms, offline.stepP99Ms),
        runP50Ms: added(sandboxed.runP50Ms, offline.runP50Ms),
        runP99Ms: added(sandboxed.runP99Ms, offline.runP99Ms),
      },
    };
    return {
      sections: { commands },
      absolute: [
        {
          figure: "shell step `echo`, sandboxed: step p50 / p99 (ms)",
          value: `${cell(sandboxed.stepP50Ms)} / ${cell(sandboxed.stepP99Ms)}`,
        },
        {
          figure: "shell step `echo`, unconfined (unsafe-host): step p50 / p99 (ms)",
          value: `${cell(host.stepP50Ms)} / ${cell(host.stepP99Ms)}`,
        },
        {
          figure: "the sandbox adds to a step, p50 / p99 (ms)",
          value: `${added(sandboxed.stepP50Ms, host.stepP50Ms)} / ${added(sandboxed.stepP99Ms, host.stepP99Ms)}`,
        },
        {
          figure: "of which the step's network (on, against off), p50 / p99 (ms)",
          value: `${added(sandboxed.stepP50Ms, offline.stepP50Ms)} / ${added(sandboxed.stepP99Ms, offline.stepP99Ms)}`,
        },
      ],
    };
  },
};
