// (p) Parked waits: 500 × 20 no-op runs drained by one oah-sandbox of 8 slots (split,
// Redis + PostgreSQL), alone and beside 5,000 sessions whose runs are parked waiting for a
// tool result that never comes. The parking runs are queued first in the same bulk
// submission, so that they park before the first no-op run starts. A parked run holds no
// slot: the no-op runs' throughput should not change, nor the sandbox's memory.
import { log } from "../log";
import type { OahSplit } from "../peers/oah-split";
import type { JobSpec } from "../peers/types";
import { round } from "../stats";
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
async function drain(peer: OahSplit, shape: ParkedShape, parking: readonly JobSpec[]) {
  let rss = 0;
  const result = await throughputOnce(peer, shape.sessions, shape.runsPerSession, shape.slots, {
    ahead: parking,
    drained: () => {
      rss = rssMb(peer.sandboxes()[0]!.child.pid!);
    },
  });
  return { runsPerSecond: result.runsPerSecond, rssMb: rss };
}

/** Runs a task on a fresh oah split system, torn down after it. */
export type WithSplit = <T>(task: (peer: OahSplit) => Promise<T>) => Promise<T>;

export async function parkedOnce(withSplit: WithSplit, shape: ParkedShape): Promise<ParkedRound> {
  const parking = Array.from({ length: shape.parked }, (_, i) => ({
    sessionId: `parked-${i}`,
    sleepMs: 0,
    waitsForTool: true,
  }));
  const alone = await withSplit((peer) => drain(peer, shape, []));
  const beside = await withSplit((peer) => drain(peer, shape, parking));
  const result = {
    runsPerSecondAlone: alone.runsPerSecond,
    runsPerSecondBesideParked: beside.runsPerSecond,
    sandboxRssMbAlone: alone.rssMb,
    sandboxRssMbBesideParked: beside.rssMb,
  };
  log(`  parked: ${JSON.stringify(result)} (ratio ${round(beside.runsPerSecond / alone.runsPerSecond, 2)})`);
  return result;
}
