import type { Run } from "@oah/contract";
import type { ClaimAheadPolicy, StepKind } from "@oah/core";
import type { SessionQueue } from "@oah/queue";
import type { RunStore } from "@oah/store";
import type { HostLeases } from "./coordination/host-leases";
import type { Executor } from "./executors/executor";
import type { HookRunner } from "./hooks/hook-runner";
import type { Liveness } from "./liveness";
import type { Logger } from "./logger";
import type { ActiveRuns } from "./worker/active-runs";

/** Observers of the engine's work (metrics, mostly); called synchronously, must not throw. */
export interface EngineObservers {
  runSubmitted?(event: { run: Run }): void;
  runStarted?(event: { run: Run; queueWaitMs: number }): void;
  runFinished?(event: { run: Run; durationMs: number }): void;
  stepFinished?(event: {
    run: Run;
    kind: StepKind;
    name: string;
    status: "completed" | "failed";
    output: unknown;
    errorCode: string | null;
    durationMs: number;
  }): void;
  /** A session claimed ahead was taken by its slot, put back, or none was found. */
  claimedAhead?(event: { outcome: "taken" | "put_back" | "empty" }): void;
}

/** Work a host has handed off and must see through before it stops (terminal writes, releases). */
export class Settling {
  private readonly pending = new Set<Promise<unknown>>();

  track(work: Promise<unknown>): void {
    const settled = work.catch(() => {}).finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }

  async done(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}

/** What the workers of one host share. */
export interface HostContext {
  hostId: string;
  store: RunStore;
  queue: SessionQueue;
  executors: ReadonlyMap<string, Executor>;
  active: ActiveRuns;
  logger: Logger;
  observers: EngineObservers;
  /** The configured hooks (OAH_HOOKS) around runs and tool calls. */
  hooks: HookRunner;
  /** Shell steps run in `<workspaceRoot>/<workspaceId>`. */
  workspaceRoot: string;
  settling: Settling;
  /** How long to keep retrying a terminal write while the store is unreachable. */
  finishRetryMs: number;
  /** When a slot claims its next session while its run starts. */
  claimAhead: ClaimAheadPolicy;
  /** Where this host renews its lease (the runs it executes) on every heartbeat, for `leaseTtlMs`. */
  leases: HostLeases;
  leaseTtlMs: number;
  /** With other hosts that may recover this one's runs: how long it may execute without renewing its lease. */
  liveness: Liveness | null;
}
