import type { PoolReport, PoolSample } from "@oah/contract";

/** Where hosts publish their pool's health for the console (docs/spec.md §8, §9). */
export interface PoolBoard {
  publish(report: PoolReport, ttlMs: number): Promise<void>;
  publishHistory(hostId: string, samples: readonly PoolSample[], ttlMs: number): Promise<void>;
  /** The reports of live hosts. */
  reports(): Promise<PoolReport[]>;
  history(hostId: string): Promise<PoolSample[]>;
  remove(hostId: string): Promise<void>;
}
