import type { ControllerReport, FleetSample } from "@oah/contract";
import {
  type ControllerTarget,
  decideFleetSize,
  type FleetDecision,
  type FleetSignals,
  type FleetSizingConfig,
  type HysteresisConfig,
  INITIAL_REBALANCE_STATE,
  keepDecision,
  MAX_DECISIONS,
  type RebalanceState,
  sameFleetDecision,
} from "@oah/core";
import type { Logger } from "@oah/engine";
import type { FleetView } from "./fleet-view";
import type { RolloutRunner } from "./rollout-runner";
import type { LeaderActs, ScaleTarget } from "./targets/scale-target";

/** The leader lease as the controller uses it (RedisLeaderLease). */
export interface LeaderLease {
  readonly candidateId: string;
  tryLead(): Promise<number | null>;
  stillLeads(token: number): Promise<boolean>;
  fenceOf(token: number): string;
  resign(): Promise<void>;
}

/** Where the leader writes: its report and its orders, each refused once its lease is gone. */
export interface LeaderWrites {
  publishReport(fence: string, report: ControllerReport): Promise<boolean>;
  giveAsLeader(fence: string, hostId: string, order: "cordon" | "drain" | null): Promise<boolean>;
}

export interface FleetControllerOptions {
  lease: LeaderLease;
  writes: LeaderWrites;
  fleet: Pick<FleetView, "read">;
  target: ScaleTarget;
  rollouts: RolloutRunner;
  sizing: FleetSizingConfig;
  hysteresis: HysteresisConfig;
  /** One sample of history per this many ms, an hour of them kept. */
  sampleIntervalMs?: number;
  logger: Logger;
}

/** What /snapshot answers (docs/spec.md §12). */
export interface ControllerSnapshot {
  leader: boolean;
  leaderId: string | null;
  desiredReplicas: number | null;
  actualReplicas: number | null;
  target: ControllerTarget;
  decisions: FleetDecision[];
}

const HOUR_MS = 3_600_000;

/**
 * One controller of the fleet (docs/spec.md §8): on each tick it takes or renews the leader
 * lease; the leader then reads the fleet, decides its size with the pure policy, moves its
 * rolling restart on, has the scale target follow, and publishes its report. A standby only
 * keeps trying the lease. Every write and scale call of the leader is fenced by its lease.
 */
export class FleetController {
  private state: RebalanceState = INITIAL_REBALANCE_STATE;
  private readonly decisions: FleetDecision[] = [];
  private readonly samples: FleetSample[] = [];
  private lastSampleAt = 0;
  private token: number | null = null;
  private actual: number | null = null;
  private lastTickOkAt = 0;
  private late = 0;
  private lastError: string | undefined;

  constructor(private readonly options: FleetControllerOptions) {}

  get leading(): boolean {
    return this.token !== null;
  }

  /** When the last tick reached Redis: what /readyz weighs. */
  get lastTickAt(): number {
    return this.lastTickOkAt;
  }

  snapshot(leaderId: string | null): ControllerSnapshot {
    return {
      leader: this.leading,
      leaderId,
      desiredReplicas: this.leading ? (this.state.desired ?? null) : null,
      actualReplicas: this.leading ? this.actual : null,
      target: this.options.target.kind,
      decisions: [...this.decisions],
    };
  }

  /** Sandboxes whose report was late at the last tick. */
  get lateHosts(): number {
    return this.late;
  }

  get lastDecision(): FleetDecision | undefined {
    return this.decisions[this.decisions.length - 1];
  }

  async tick(now = Date.now()): Promise<void> {
    const { lease, logger } = this.options;
    try {
      const wasLeading = this.leading;
      this.token = await lease.tryLead();
      this.lastTickOkAt = Date.now();
      if (this.token !== null && !wasLeading) {
        // A new leader decides afresh: the previous one's streaks and cooldowns were its own.
        this.state = INITIAL_REBALANCE_STATE;
        logger.info({ token: this.token }, "leading the fleet");
      }
      if (this.token === null) {
        if (wasLeading) logger.warn({}, "no longer leading the fleet");
        this.actual = null;
        return;
      }
      await this.lead(this.token, now);
      if (this.lastError) logger.info({}, "controller tick recovered");
      this.lastError = undefined;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) logger.warn({ err: error }, "controller tick failed");
      this.lastError = message;
    }
  }

  private async lead(token: number, now: number): Promise<void> {
    const { lease, writes, target, rollouts, sizing, hysteresis, logger } = this.options;
    const fence = lease.fenceOf(token);
    const acts: LeaderActs = {
      stillLeads: () => lease.stillLeads(token),
      order: (hostId, order) => writes.giveAsLeader(fence, hostId, order),
    };
    const signals = await this.options.fleet.read(now);
    this.late = signals.hosts.filter((h) => !h.healthy).length;
    const step = decideFleetSize(this.state, signals, now, sizing, hysteresis);
    this.state = step.state;
    const { decision } = step;
    const previous = this.lastDecision;
    if (
      keepDecision(this.decisions, decision, MAX_DECISIONS, sameFleetDecision) &&
      (previous?.reason !== decision.reason || decision.previousDesired !== decision.desiredReplicas)
    )
      logger.info(
        {
          reason: decision.reason,
          blockedBy: decision.blockedBy,
          from: decision.previousDesired,
          to: decision.desiredReplicas,
          suggested: decision.suggestedReplicas,
        },
        "fleet decision",
      );
    const { surge, draining } = await rollouts.advance(signals.hosts, acts, fence, now);
    // The sandbox the rollout drains counts as draining from the tick its order is given.
    const hosts = signals.hosts.map((h) =>
      h.hostId === draining && h.state !== "drained" ? { ...h, state: "draining" as const } : h,
    );
    this.actual = await target.reconcile(decision.desiredReplicas + surge, hosts, acts);
    this.sample(now, decision, signals);
    await writes.publishReport(fence, {
      leaderId: lease.candidateId,
      at: now,
      target: target.kind,
      desiredReplicas: decision.desiredReplicas,
      actualReplicas: this.actual,
      decisions: [...this.decisions],
      history: [...this.samples],
    });
  }

  private sample(now: number, decision: FleetDecision, signals: FleetSignals): void {
    if (now - this.lastSampleAt < (this.options.sampleIntervalMs ?? 5_000)) return;
    this.lastSampleAt = now;
    this.samples.push({
      at: now,
      desiredReplicas: decision.desiredReplicas,
      actualReplicas: this.actual ?? 0,
      readySessionCount: signals.readySessionCount,
      busySlots: decision.figures.busySlots,
    });
    while (this.samples.length > 0 && this.samples[0]!.at < now - HOUR_MS) this.samples.shift();
  }

  /** A clean stop: the lease is given up at once, so that a standby need not wait for it to lapse. */
  async stop(): Promise<void> {
    await this.options.lease.resign().catch(() => {});
    this.token = null;
    await this.options.target.close();
  }
}
