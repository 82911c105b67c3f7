// (r) What checkpoints cost (durable runs, docs/spec.md §7): agent runs of 10 steps against
// the model stand-in of @oah/testing (an OpenAI-streaming server in the bench process), on
// oah's embedded default (SQLite) and on oah-api's embedded pool over Redis + PostgreSQL.
// Each system runs twice at once, with OAH_CHECKPOINTS on and off, measured in alternation.
// A run's 10 steps are an agent's turn: 5 model replies (the first asks for two commands at
// once, the next three for one, the last answers) and 5 answers of the shell tool (`printf` of
// 400 bytes by the host's /bin/sh: OAH_SHELL=unsafe-host, for the sandbox's cost is workload
// g's); each step's end carries its checkpoint in the same statement. Figures: a run's
// duration (started_at → ended_at), one run at a time, each in a session of its own, its p50
// with and without, and the difference over the 10 steps; runs/s of `sessions` × `turns` of
// that agent submitted at once to `slots` workers (four drains: on, off, off, on); and the
// bytes the store keeps in run_checkpoints per step, for a first turn and for each later turn
// of a session (whose checkpoints name the run the conversation of the session's earlier
// turns is carried from, instead of logging it again).
import { createClient } from "@oah/client";
import { createTempDir, type FakeModelRequest, type FakeReply, startFakeModel } from "@oah/testing";
import { log } from "../log";
import { PEER_LABELS } from "../peers";
import { inParallel, postJson, type RunCheckpointBytes, SUBMIT_CONCURRENCY } from "../peers/oah-client";
import type { OahPeer } from "../peers/oah-common";
import type { Services } from "../services";
import { percentile, round, summarize } from "../stats";
import { cell } from "../table";
import { add, type Workload } from "../workload";
import { type StepEnds, stepEndsOnce } from "./step-ends";

/** Where its committed figures are: `npm run bench -- --only checkpoints --reps 3 --out` this. */
export const CHECKPOINT_RESULTS = "bench/results/checkpoints.json";

export const CHECKPOINT_MODES = ["on", "off"] as const;
export type CheckpointMode = (typeof CHECKPOINT_MODES)[number];
export const CHECKPOINT_SYSTEMS = ["oahEmbedded", "oahRedisPg"] as const;
export type CheckpointSystem = (typeof CHECKPOINT_SYSTEMS)[number];

/** The steps of one agent run: 5 model replies and 5 tool answers, each with its checkpoint. */
export const AGENT_STEPS = 10;
/** What each shell call prints: a tool's answer of some size, as agents' commands give. */
const TOOL_COMMAND = "printf '%0400d\\n' 0";
const AGENT_INPUT = { prompt: "Look around the workspace, then say what you found.", tools: { shell: true } };

/**
 * The stand-in's answer at each point of a turn, from the conversation it is sent: how many
 * replies this turn has had since its prompt (the session's earlier turns come before it).
 */
export function agentReply(body: FakeModelRequest["body"]): FakeReply {
  const { messages } = body;
  let replies = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== "user"; i--)
    if (messages[i]!.role === "assistant") replies++;
  if (replies >= 4) return { content: "done" };
  const calls = replies === 0 ? 2 : 1;
  return {
    toolCalls: Array.from({ length: calls }, (_, i) => ({
      id: `call_${replies}_${i}`,
      name: "shell",
      arguments: { command: TOOL_COMMAND },
    })),
    usage: {
      prompt_tokens: 100 * (replies + 1),
      completion_tokens: 20,
      total_tokens: 100 * (replies + 1) + 20,
    },
  };
}

export interface CheckpointRound {
  system: CheckpointSystem;
  mode: CheckpointMode;
  /** Runs one at a time: their durations' p50 and p99. */
  runP50Ms: number;
  runP99Ms: number;
  runsPerSecond: number;
  /** Bytes in run_checkpoints per step: a first turn's, and each turn's of the sessions' (1 = first). */
  firstTurn: TurnBytes;
  byTurn: TurnBytes[];
}

export interface TurnBytes {
  runs: number;
  checkpointsPerRun: number;
  /** JSON text of the checkpoints' state and appended log, per step. */
  jsonBytesPerStep: number;
  /** What the store keeps of them per step (PostgreSQL: pg_column_size; SQLite: the JSON text). */
  storedBytesPerStep: number;
  /** The JSON text per step had each checkpoint rewritten the whole conversation so far (not the store's way). */
  rewriteJsonBytesPerStep: number;
  /** The JSON text of the run's output (its answer and the whole conversation), per run. */
  outputJsonBytes: number;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

function turnBytes(rows: readonly RunCheckpointBytes[]): TurnBytes {
  const steps = rows.length * AGENT_STEPS;
  const sum = (f: (r: RunCheckpointBytes) => number) => rows.reduce((a, r) => a + f(r), 0);
  return {
    runs: rows.length,
    checkpointsPerRun: round(mean(rows.map((r) => r.checkpoints)), 2),
    jsonBytesPerStep: Math.round(sum((r) => r.jsonBytes) / steps),
    storedBytesPerStep: Math.round(sum((r) => r.storedBytes) / steps),
    rewriteJsonBytesPerStep: Math.round(sum((r) => r.rewriteJsonBytes) / steps),
    outputJsonBytes: Math.round(mean(rows.map((r) => r.outputJsonBytes))),
  };
}

/** Each completed run's bytes, by the turn it was of its session (its rank by seq). */
function byTurn(rows: readonly RunCheckpointBytes[]): RunCheckpointBytes[][] {
  const sessions = new Map<string, RunCheckpointBytes[]>();
  for (const r of rows) add(sessions, r.sessionId, r);
  const turns = new Map<string, RunCheckpointBytes[]>();
  for (const runs of sessions.values())
    for (const [turn, r] of runs.sort((a, b) => a.seq - b.seq).entries()) add(turns, String(turn), r);
  return [...turns.keys()].sort((a, b) => Number(a) - Number(b)).map((turn) => turns.get(turn)!);
}

export interface CheckpointShape {
  samples: number;
  warmUp: number;
  sessions: number;
  turns: number;
  slots: number;
}

async function submitAgent(url: string, sessionId: string): Promise<string> {
  const res = await postJson(url, `/api/v1/sessions/${encodeURIComponent(sessionId)}/runs`, {
    executor: "agent",
    input: AGENT_INPUT,
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { run: { id: string } }).run.id;
}

/** Runs of one at a time so far, and of drains, that each system of a pair has finished. */
type Finished = Record<CheckpointMode, number>;

/** One drain: `sessions` × `turns` runs in sessions of its own, submitted at once; its runs/s. */
async function drain(peer: OahPeer, tag: string, shape: CheckpointShape, finishedBefore: number) {
  const runs = Array.from({ length: shape.sessions * shape.turns }, (_, i) => `${tag}-${i % shape.sessions}`);
  // Turn after turn of each session, round-robin: the workers take each session's in order.
  await inParallel(runs.length, SUBMIT_CONCURRENCY, async (i) => {
    await submitAgent(peer.url, runs[i]!);
  });
  await peer.waitDone(finishedBefore + runs.length, 600_000);
  const drained = (await peer.timings()).filter((t) => t.sessionId?.startsWith(`${tag}-`));
  const first = Math.min(...drained.map((t) => t.startedAt));
  const last = Math.max(...drained.map((t) => t.endedAt));
  return { runs: runs.length, runsPerSecond: drained.length / Math.max(0.001, (last - first) / 1000) };
}

/**
 * One system twice, with checkpoints on and off, both up at once and measured in alternation
 * (run for run, drain for drain: on off off on), so that the load of the machine, which drifts,
 * falls on both alike.
 */
export async function checkpointsSideBySide(
  peers: Record<CheckpointMode, OahPeer>,
  system: CheckpointSystem,
  modelUrl: string,
  shape: CheckpointShape,
  /** Which of the two starts first (and so warms first): the repetitions take turns. */
  first: CheckpointMode,
): Promise<CheckpointRound[]> {
  try {
    for (const mode of first === "on" ? CHECKPOINT_MODES : [...CHECKPOINT_MODES].reverse()) {
      peers[mode].addEnv({ OAH_CHECKPOINTS: mode, OAH_MODEL_BASE_URL: modelUrl, OAH_SHELL: "unsafe-host" });
      await peers[mode].setup();
      await peers[mode].startWorkers(shape.slots);
    }
    const durations: Record<CheckpointMode, number[]> = { on: [], off: [] };
    const finished: Finished = { on: 0, off: 0 };
    for (let i = 0; i < shape.warmUp + shape.samples; i++) {
      for (const mode of i % 2 === 0 ? CHECKPOINT_MODES : [...CHECKPOINT_MODES].reverse()) {
        const peer = peers[mode];
        const id = await submitAgent(peer.url, `one-${i}`);
        // Read often: the next sample waits for this one; the figures are the run's own times.
        const run = await createClient({ baseUrl: peer.url }).wait(id, { intervalMs: 1 });
        if (run.status !== "completed")
          throw new Error(`${system} ${mode}: run ${run.id} ended ${run.status}`);
        finished[mode]++;
        if (i >= shape.warmUp) durations[mode].push(Date.parse(run.endedAt!) - Date.parse(run.startedAt!));
      }
    }
    const rates: Record<CheckpointMode, number[]> = { on: [], off: [] };
    for (const [d, mode] of (["on", "off", "off", "on"] as const).entries()) {
      const drained = await drain(peers[mode], `tp${d}`, shape, finished[mode]);
      finished[mode] += drained.runs;
      rates[mode].push(drained.runsPerSecond);
    }
    const rounds: CheckpointRound[] = [];
    for (const mode of CHECKPOINT_MODES) {
      const bytes = await peers[mode].runs.checkpointBytes();
      const expected = mode === "on" ? AGENT_STEPS : 0;
      const odd = bytes.find((r) => r.checkpoints !== expected);
      if (odd)
        throw new Error(`${system} ${mode}: a run has ${odd.checkpoints} checkpoints, not ${expected}`);
      const result: CheckpointRound = {
        system,
        mode,
        runP50Ms: percentile(durations[mode], 50),
        runP99Ms: percentile(durations[mode], 99),
        runsPerSecond: round(mean(rates[mode])),
        firstTurn: turnBytes(bytes.filter((r) => r.sessionId.startsWith("one-"))),
        byTurn: byTurn(bytes.filter((r) => r.sessionId.startsWith("tp"))).map(turnBytes),
      };
      log(
        `  checkpoints ${mode} ${system}: run p50 ${result.runP50Ms} ms, p99 ${result.runP99Ms} ms; ` +
          `${result.runsPerSecond} runs/s (${rates[mode].map((r) => round(r)).join(", ")}); ` +
          `${result.firstTurn.storedBytesPerStep} B/step stored (first turn), ` +
          `${result.byTurn.at(-1)?.storedBytesPerStep} (turn ${result.byTurn.length})`,
      );
      rounds.push(result);
    }
    return rounds;
  } finally {
    for (const mode of CHECKPOINT_MODES) await peers[mode].teardown();
  }
}

/** The step ends alone on the system's kind of store: a SQLite file, or a database of its own. */
async function stepEndsOn(system: CheckpointSystem, services: Services, samples: number): Promise<StepEnds> {
  const dir = createTempDir("oah-bench-step-ends-");
  const db = system === "oahRedisPg" ? await services.createDatabase("stepends") : undefined;
  try {
    const ends = await stepEndsOnce({ dataDir: dir.path, ...(db ? { databaseUrl: db.url } : {}) }, samples);
    log(
      `  step ends alone, ${system}: p50 ${ends.withCheckpointP50Ms} ms with a checkpoint, ${ends.withoutP50Ms} ms without`,
    );
    return ends;
  } finally {
    await db?.drop();
    dir.remove();
  }
}

/** Each round by `${system}:${mode}`, and each system's step ends alone, in the order of the repetitions. */
export interface CheckpointsRaw {
  rounds: Map<string, CheckpointRound[]>;
  stepEnds: Map<string, StepEnds[]>;
}

/** A system's figures with and without checkpoints, and what checkpoints cost it. */
function costOf(on: readonly CheckpointRound[], off: readonly CheckpointRound[], ends: readonly StepEnds[]) {
  const figures = (rs: readonly CheckpointRound[]) => ({
    runP50Ms: summarize(rs.map((r) => r.runP50Ms)),
    runP99Ms: summarize(rs.map((r) => r.runP99Ms)),
    runsPerSecond: summarize(rs.map((r) => r.runsPerSecond)),
  });
  // Each repetition's on and off were measured side by side: their differences, then the median.
  const perStep = summarize(on.map((r, i) => round((r.runP50Ms - off[i]!.runP50Ms) / AGENT_STEPS, 2)));
  const throughputChange = summarize(
    on.map((r, i) => round((100 * (r.runsPerSecond - off[i]!.runsPerSecond)) / off[i]!.runsPerSecond, 1)),
  );
  const last = on.at(-1)!;
  return {
    on: figures(on),
    off: figures(off),
    perStepMs: perStep,
    stepEnd: {
      withCheckpointP50Ms: summarize(ends.map((e) => e.withCheckpointP50Ms)),
      withoutP50Ms: summarize(ends.map((e) => e.withoutP50Ms)),
      addedP50Ms: summarize(ends.map((e) => round(e.withCheckpointP50Ms - e.withoutP50Ms, 3))),
    },
    throughputChangePercent: throughputChange,
    bytes: { firstTurn: last.firstTurn, byTurn: last.byTurn },
  };
}

export const checkpoints: Workload<CheckpointsRaw> = {
  name: "checkpoints",
  alias: "r",
  measures:
    "agent runs of 10 steps (model stand-in, shell tool) with OAH_CHECKPOINTS on and off: cost, bytes",
  systems: {
    own: "oah embedded (SQLite) and oah Redis+PG (embedded pool), each with checkpoints on and off",
  },
  writes: {
    checkpoints: ["unit", "workload", ...CHECKPOINT_SYSTEMS],
  },
  async run({ plan, services, withPeer }) {
    const shape = plan.checkpoints;
    const model = await startFakeModel({ respond: agentReply });
    const raw: CheckpointsRaw = { rounds: new Map(), stepEnds: new Map() };
    try {
      for (let rep = 1; rep <= plan.reps; rep++) {
        log(
          `(r) agent runs of ${AGENT_STEPS} steps with checkpoints on and off, repetition ${rep}/${plan.reps}`,
        );
        for (const system of CHECKPOINT_SYSTEMS) {
          const rounds = await withPeer(system, (on) =>
            withPeer(system, (off) =>
              checkpointsSideBySide(
                { on: on as OahPeer, off: off as OahPeer },
                system,
                model.url,
                shape,
                rep % 2 === 1 ? "on" : "off",
              ),
            ),
          );
          for (const r of rounds) add(raw.rounds, `${system}:${r.mode}`, r);
          add(raw.stepEnds, system, await stepEndsOn(system, services, shape.stepEnds));
        }
      }
    } finally {
      await model.close();
    }
    return raw;
  },
  report(raw, plan) {
    const bySystem = Object.fromEntries(
      CHECKPOINT_SYSTEMS.map((system) => [
        system,
        costOf(raw.rounds.get(`${system}:on`)!, raw.rounds.get(`${system}:off`)!, raw.stepEnds.get(system)!),
      ]),
    );
    const checkpoints = {
      unit:
        "agent runs of 10 steps: run p50/p99 (ms, one at a time), runs/s (sessions × turns at once), " +
        "checkpoint bytes per step (run_checkpoints: state + appended)",
      workload: { steps: AGENT_STEPS, toolCommand: TOOL_COMMAND, ...plan.checkpoints },
      ...bySystem,
    };
    const absolute = CHECKPOINT_SYSTEMS.flatMap((system) => {
      const c = bySystem[system]!;
      const label = PEER_LABELS[system];
      const turns = c.bytes.byTurn;
      return [
        {
          figure: `checkpoints, ${label}: agent runs/s with / without`,
          value: `${cell(c.on.runsPerSecond)} / ${cell(c.off.runsPerSecond)} (${cell(c.throughputChangePercent)} %)`,
        },
        { figure: `checkpoints, ${label}: added per step, from run p50 (ms)`, value: c.perStepMs },
        {
          figure: `checkpoints, ${label}: a step's end in the store alone, p50 with / without (ms)`,
          value: `${cell(c.stepEnd.withCheckpointP50Ms)} / ${cell(c.stepEnd.withoutP50Ms)} (+${cell(c.stepEnd.addedP50Ms)})`,
        },
        {
          figure: `checkpoints, ${label}: bytes stored per step, a first turn / a session's turn ${turns.length}`,
          value: `${c.bytes.firstTurn.storedBytesPerStep} / ${turns.at(-1)?.storedBytesPerStep ?? "–"}`,
        },
        {
          figure: `checkpoints, ${label}: JSON per step appended / had each rewritten the conversation, turn 1 / ${turns.length}`,
          value: `${c.bytes.firstTurn.jsonBytesPerStep} / ${c.bytes.firstTurn.rewriteJsonBytesPerStep}; ${turns.at(-1)?.jsonBytesPerStep ?? "–"} / ${turns.at(-1)?.rewriteJsonBytesPerStep ?? "–"}`,
        },
      ];
    });
    return { sections: { checkpoints }, absolute };
  },
};
