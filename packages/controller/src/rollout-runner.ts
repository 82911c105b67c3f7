import type { Rollout } from "@oah/contract";
import type { FleetHost } from "@oah/core";
import type { Logger } from "@oah/engine";
import type { LeaderActs } from "./targets/scale-target";

/** Where rollouts are queued by the API and their progress saved by the leader (RedisControllerChannel). */
export interface RolloutBook {
  currentRollout(): Promise<Rollout | null>;
  saveRollout(fence: string, rollout: Rollout): Promise<boolean>;
}

export interface RolloutRunnerOptions {
  book: RolloutBook;
  /** False for a target that starts no sandbox (`none`): a rollout then fails at once. */
  /** Why the target cannot roll out (RolloutRunner fails the rollout with it), or null. */
  refusal: string | null;
  /** How long one replacement may take to come up before the rollout fails. */
  stepTimeoutMs?: number;
  logger: Logger;
}

/**
 * A rolling restart, one sandbox at a time (docs/spec.md §8), moved on by the leader's ticks
 * so that it survives a change of leader: for each sandbox of the fleet as it was when the
 * rollout started, one more sandbox is asked for (a surge of 1) until a new one serves; the
 * old one is then drained (its runs finish, or go to recovery after the drain timeout) and
 * removed. Nothing is executed twice: a drain hands a run over only through recovery.
 */
export class RolloutRunner {
  private readonly stepStartedAt = new Map<string, number>();

  constructor(private readonly options: RolloutRunnerOptions) {}

  /**
   * Moves the current rollout on, under the leader's `fence`. Answers the surge it needs now
   * (0 or 1), and the sandbox it is draining, which the scale target must count as draining
   * already in this tick.
   */
  async advance(
    hosts: readonly FleetHost[],
    leader: LeaderActs,
    fence: string,
    now: number,
  ): Promise<{ surge: number; draining: string | null }> {
    const { book, refusal, logger } = this.options;
    const rollout = await book.currentRollout();
    if (!rollout) return { surge: 0, draining: null };
    const before = JSON.stringify(rollout);
    const surge = this.step(rollout, hosts, now, refusal);
    if (JSON.stringify(rollout) !== before) {
      if (rollout.state === "done" || rollout.state === "failed")
        logger.info(
          { rolloutId: rollout.rolloutId, state: rollout.state, message: rollout.message },
          "rollout ended",
        );
      await book.saveRollout(fence, rollout);
    }
    const draining = rollout.steps.find((s) => s.state === "draining")?.hostId ?? null;
    if (draining) await leader.order(draining, "drain");
    return { surge, draining };
  }

  private step(rollout: Rollout, hosts: readonly FleetHost[], now: number, refusal: string | null): number {
    if (rollout.state === "pending") {
      if (refusal) return this.fail(rollout, now, refusal);
      rollout.state = "running";
      rollout.startedAt = now;
      rollout.steps = hosts
        .filter((h) => h.state === "active")
        .map((h) => ({ hostId: h.hostId, replacementId: null, state: "waiting" as const }));
      rollout.total = rollout.steps.length;
    }
    if (rollout.state !== "running") return 0;
    const byId = new Map(hosts.map((h) => [h.hostId, h]));
    const taken = new Set(rollout.steps.flatMap((s) => [s.hostId, s.replacementId ?? ""]));
    for (const step of rollout.steps) {
      if (step.state === "replaced") continue;
      const old = byId.get(step.hostId);
      if (step.state === "waiting") {
        // Gone already (it crashed, or was scaled away): nothing left to replace.
        if (!old) {
          step.state = "replaced";
          rollout.replaced++;
          continue;
        }
        step.state = "starting";
        this.stepStartedAt.set(step.hostId, now);
      }
      if (step.state === "starting") {
        const fresh = hosts.find((h) => h.state === "active" && h.healthy && !taken.has(h.hostId));
        if (!fresh) {
          const since = this.stepStartedAt.get(step.hostId) ?? now;
          this.stepStartedAt.set(step.hostId, since);
          if (now - since > (this.options.stepTimeoutMs ?? 120_000))
            return this.fail(rollout, now, `no replacement for ${step.hostId} came up in time`);
          return 1;
        }
        step.replacementId = fresh.hostId;
        step.state = "draining";
      }
      if (step.state === "draining") {
        if (old && old.state !== "drained") return 0;
        step.state = "replaced";
        rollout.replaced++;
      }
    }
    rollout.state = "done";
    rollout.finishedAt = now;
    return 0;
  }

  private fail(rollout: Rollout, now: number, message: string): number {
    rollout.state = "failed";
    rollout.finishedAt = now;
    rollout.message = message;
    return 0;
  }
}
