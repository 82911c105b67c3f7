import type { EventBus, HostLeases, SessionQueue } from "@oah/coordination";
import type { ClaimAheadPolicy, WaitMode } from "@oah/core";
import type { RunStore } from "@oah/store";
import type { ActiveRuns } from "./active-runs";
import type { Clock } from "./clock";
import type { Executor } from "./executors/executor";
import type { HookRunner } from "./hooks/hook-runner";
import type { Liveness } from "./liveness";
import type { Logger } from "./logger";
import type { EngineObservers } from "./observers";
import type { Settling } from "./settling";
import type { HeldWaits } from "./tool-wait";

/**
 * Everything the parts of one host share, built once by createEngine. No part takes
 * all of it: each names the slice it uses (a `Pick` of this), so that what a part can
 * touch is read from its own file.
 */
export interface HostContext {
  hostId: string;
  /** The time of every part: what they read as now, and their timers. */
  clock: Clock;
  store: RunStore;
  queue: SessionQueue;
  executors: ReadonlyMap<string, Executor>;
  active: ActiveRuns;
  /** The executions that hold their wait for a tool result here (OAH_WAIT_MODE=hold). */
  heldWaits: HeldWaits;
  logger: Logger;
  observers: EngineObservers;
  /** Where executions publish their live events (a model's text as it is written). */
  events: EventBus;
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
  /** Whether a run waiting for a client's tool result parks (frees its slot) or holds its execution. */
  waitMode: WaitMode;
  /** Whether executions checkpoint their completed steps and go on from the last one (OAH_CHECKPOINTS). */
  checkpoints: boolean;
  /** How long an interrupted run may go on to its next step boundary before it is cancelled in its step. */
  interruptGraceMs: number;
}
