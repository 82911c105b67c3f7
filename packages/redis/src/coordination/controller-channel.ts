import type { ControllerReport, Rollout } from "@oah/contract";
import type { ControllerChannel } from "@oah/coordination";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";
import { defineScripts, type ScriptedRedis } from "../scripts";

const REPORT = "report";

/**
 * The controllers' side of Redis and the API's view of it: the leader's report, which counts
 * only while its writer still holds the lease, and the rolling restarts, queued by the API and
 * carried out by the leader. Every write of a controller is fenced by its lease.
 */
export class RedisControllerChannel implements ControllerChannel {
  private readonly redis: ScriptedRedis;
  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = defineScripts(redis);
    this.keys = redisKeys(prefix);
  }

  async report(): Promise<ControllerReport | null> {
    const [[, lease], [, value]] = (await this.redis
      .multi()
      .get(this.keys.controllerLeader)
      .hget(this.keys.controllerState, REPORT)
      .exec()) as [[unknown, string | null], [unknown, string | null]];
    if (lease == null || value == null) return null;
    const report = JSON.parse(value) as ControllerReport;
    // A report left by a leader that has since lost its lease is no one's.
    return lease.slice(lease.indexOf(" ") + 1) === report.leaderId ? report : null;
  }

  /** False, and nothing written, when `fence` is no longer the leader's lease. */
  async publishReport(fence: string, report: ControllerReport): Promise<boolean> {
    return this.fencedWrite(fence, this.keys.controllerState, REPORT, JSON.stringify(report));
  }

  async requestRollout(rollout: Rollout): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.rollouts, rollout.rolloutId, JSON.stringify(rollout))
      .rpush(this.keys.rolloutQueue, rollout.rolloutId)
      .exec();
  }

  async rollout(rolloutId: string): Promise<Rollout | null> {
    const value = await this.redis.hget(this.keys.rollouts, rolloutId);
    return value ? (JSON.parse(value) as Rollout) : null;
  }

  /** The oldest rollout not finished yet, if any: the one the leader carries out (or resumes). */
  async currentRollout(): Promise<Rollout | null> {
    const id = await this.redis.lindex(this.keys.rolloutQueue, 0);
    return id === null ? null : this.rollout(id);
  }

  /** Saves the rollout's progress; a finished one leaves the queue. */
  async saveRollout(fence: string, rollout: Rollout): Promise<boolean> {
    const saved = await this.fencedWrite(
      fence,
      this.keys.rollouts,
      rollout.rolloutId,
      JSON.stringify(rollout),
    );
    if (saved && (rollout.state === "done" || rollout.state === "failed"))
      await this.redis.lrem(this.keys.rolloutQueue, 1, rollout.rolloutId);
    return saved;
  }

  private async fencedWrite(fence: string, hash: string, field: string, value: string): Promise<boolean> {
    return (await this.redis.oahFencedHset(this.keys.controllerLeader, hash, fence, field, value)) === 1;
  }
}
