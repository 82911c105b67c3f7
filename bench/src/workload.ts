// What a workload of the bench is, and the few things workloads share: one module of
// workloads/ defines each, and registry.ts lists them in the order they run. A workload
// measures (`run`: its repetitions, the systems alternating within each) and then says what it
// measured (`report`: pure, from what `run` returned), so that the keys it writes in the
// results file can be checked without a run.
import { PEER_LABELS, type Peer, type PeerId } from "./peers";
import type { OahRedisPgEmbedded } from "./peers/oah-redis-pg-embedded";
import type { OahSplit } from "./peers/oah-split";
import type { BenchPlan } from "./plan";
import type { Services } from "./services";
import type { AbsoluteRow, ComparedRow } from "./table";

/** The results file's sections that workloads write, each an object of named fields. */
export type Sections = Record<string, Record<string, unknown>>;

/** What the bench hands a workload to measure with. */
export interface WorkloadContext {
  readonly plan: BenchPlan;
  readonly services: Services;
  /** A fresh system of that id for `task`; one still live at an interrupt is torn down. */
  withPeer<T>(id: PeerId, task: (peer: Peer) => Promise<T>): Promise<T>;
}

/** What a workload adds to the results file and to the report's two tables. */
export interface WorkloadReport {
  /** Sections by key; a section that an earlier workload wrote gets these fields added. */
  sections: Sections;
  compared?: ComparedRow[];
  absolute?: AbsoluteRow[];
}

export interface Workload<Raw = unknown> {
  /** What `--only` takes: what it measures, in a word or two. */
  readonly name: string;
  /** Its letter, the name it had first; `--only` and `--workloads` take it too. */
  readonly alias: string;
  /** One line for `--help`. */
  readonly measures: string;
  /** Every system of `--peers`, alternating within each repetition; or systems of its own, as named. */
  readonly systems: "peers" | { readonly own: string };
  /** The fields it may write in each section of the results file (peers' ids where one per system). */
  readonly writes: Readonly<Record<string, readonly string[]>>;
  run(context: WorkloadContext): Promise<Raw>;
  /** What `run` measured, as results and table rows; `earlier` is what the workloads before it wrote. */
  report(raw: Raw, plan: BenchPlan, earlier: Readonly<Sections>): WorkloadReport;
}

/** The oah systems of a plan, each set beside every other system in the compared table. */
export const oahSystems = (plan: BenchPlan): PeerId[] => plan.peers.filter((id) => id.startsWith("oah"));
export const otherSystems = (plan: BenchPlan): PeerId[] => plan.peers.filter((id) => !id.startsWith("oah"));

/** A compared row's system pair, as the tables name it. */
export const versus = (oah: PeerId, peer: PeerId): string => `${PEER_LABELS[oah]} vs ${PEER_LABELS[peer]}`;

/** Appends to the list under a key. */
export function add<V>(lists: Map<string, V[]>, key: string, value: V): void {
  const list = lists.get(key) ?? [];
  list.push(value);
  lists.set(key, list);
}

/** The split deployment (oah-api --api-only + oah-sandbox) for a workload that measures it alone. */
export const withSplit =
  (context: WorkloadContext) =>
  <T>(task: (peer: OahSplit) => Promise<T>): Promise<T> =>
    context.withPeer("oahSplit", (peer) => task(peer as OahSplit));

/** oah-api with its embedded pool on Redis + PostgreSQL, for a workload that measures it alone. */
export const withRedisPg =
  (context: WorkloadContext) =>
  <T>(task: (peer: OahRedisPgEmbedded) => Promise<T>): Promise<T> =>
    context.withPeer("oahRedisPg", (peer) => task(peer as OahRedisPgEmbedded));
