// (p) Parked waits: 500 × 20 no-op runs drained by one oah-sandbox of 8 slots (split,
// Redis + PostgreSQL), beside 5,000 sessions whose runs are parked waiting for a tool
// result that never comes, and alone. The parking runs are queued first in the same bulk
// submission, so that they park before the first measured run starts; alone, as many
// no-op runs of other sessions go first instead, so that both drains start on a sandbox
// as warm. A parked run holds no slot: the measured runs' throughput should not change,
// nor the sandbox's memory.
import { log } from "../log";
import type { OahSplit } from "../peers/oah-split";
import type { JobSpec } from "../peers/types";
import { round, summarize } from "../stats";
import { cell } from "../table";
import { type Workload, withSplit } from "../workload";
import { rssMb } from "./memory";
import { throughputOnce } from "./throughput";

export interface ParkedShape {
  parked: number;
  sessions: number;
  runsPerSession: number;
  slots: number;
}

export interface ParkedRound {
  runsPerSecondAlone: number;
  runsPerSecondBesideParked: number;
  sandboxRssMbAlone: number;
  sandboxRssMbBesideParked: number;
}

/** The no-op runs' throughput and the sandbox's RSS at the end of their drain. */
async function drain(peer: OahSplit, shape: ParkedShape, ahead: readonly JobSpec[], aheadFinishes: boolean) {
  let rss = 0;
  const result = await throughputOnce(peer, shape.sessions, shape.runsPerSession, shape.slots, {
    ahead,
    aheadFinishes,
    drained: () => {
      rss = rssMb(peer.sandboxes()[0]!.child.pid!);
    },
  });
  return { runsPerSecond: result.runsPerSecond, rssMb: rss };
}

/** Runs a task on a fresh oah split system, torn down after it. */
export type WithSplit = <T>(task: (peer: OahSplit) => Promise<T>) => Promise<T>;

export async function parkedOnce(withSplit: WithSplit, shape: ParkedShape): Promise<ParkedRound> {
  const ahead = (tag: string, waitsForTool: boolean) =>
    Array.from({ length: shape.parked }, (_, i) => ({ sessionId: `${tag}-${i}`, sleepMs: 0, waitsForTool }));
  // Alone, as many no-op runs go first and complete: the sandbox is as warm when the measured runs start.
  const alone = await withSplit((peer) => drain(peer, shape, ahead("warm", false), true));
  const beside = await withSplit((peer) => drain(peer, shape, ahead("parked", true), false));
  const result = {
    runsPerSecondAlone: alone.runsPerSecond,
    runsPerSecondBesideParked: beside.runsPerSecond,
    sandboxRssMbAlone: alone.rssMb,
    sandboxRssMbBesideParked: beside.rssMb,
  };
  log(`  parked: ${JSON.stringify(result)} (ratio ${round(beside.runsPerSecond / alone.runsPerSecond, 2)})`);
  return result;
}

export const parked: Workload<ParkedRound[]> = {
  name: "parked",
  alias: "p",
  measures: "500×20 no-op runs beside 5,000 sessions parked waiting for a tool result, and alone",
  systems: { own: "oah split, one oah-sandbox of 8 slots" },
  writes: {
    parked: [
      "unit",
      "shape",
      "runsPerSecondAlone",
      "runsPerSecondBesideParked",
      "ratio",
      "sandboxRssMbAlone",
      "sandboxRssMbBesideParked",
    ],
  },
  async run(context) {
    const { plan } = context;
    const shape = plan.parked;
    const rounds: ParkedRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(p) ${shape.sessions}×${shape.runsPerSession} no-op runs beside ${shape.parked} parked sessions, ` +
          `${shape.slots} slots, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await parkedOnce(withSplit(context), shape));
    }
    return rounds;
  },
  report(rounds, plan) {
    const shape = plan.parked;
    const of = (pick: (r: ParkedRound) => number) => summarize(rounds.map(pick));
    const ratio = of((r) => Math.round((r.runsPerSecondBesideParked / r.runsPerSecondAlone) * 100) / 100);
    const parked = {
      unit: "runs/s of the no-op runs, completed / (last end − first start); one oah-sandbox, split, Redis + PostgreSQL",
      shape,
      runsPerSecondAlone: of((r) => r.runsPerSecondAlone),
      runsPerSecondBesideParked: of((r) => r.runsPerSecondBesideParked),
      ratio,
      sandboxRssMbAlone: of((r) => r.sandboxRssMbAlone),
      sandboxRssMbBesideParked: of((r) => r.sandboxRssMbBesideParked),
    };
    return {
      sections: { parked },
      absolute: [
        {
          figure: `no-op runs beside ${shape.parked} parked sessions / alone, ${shape.slots} slots (throughput ratio)`,
          value: ratio,
        },
        {
          figure: "oah-sandbox RSS after the drain: alone / beside the parked sessions (MB)",
          value: `${cell(parked.sandboxRssMbAlone)} / ${cell(parked.sandboxRssMbBesideParked)}`,
        },
      ],
    };
  },
};
