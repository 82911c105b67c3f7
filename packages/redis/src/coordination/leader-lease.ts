import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";
import { defineScripts, type ScriptedRedis } from "../scripts";

/** Who leads, as the lease in Redis says. */
export interface LeaderView {
  leaderId: string | null;
  token: number | null;
}

/**
 * The controllers' leader lease (docs/spec.md §8): any number of candidates, one leader at a
 * time, holding a fencing token that grows with every new leader. A leader renews well
 * within the TTL; a candidate takes over once the lease has lapsed (so within 2 × TTL of the
 * leader's death or freeze). Before each write or scale call a leader asks `stillLeads`: a
 * deposed one (frozen past its lease, then thawed) is told no.
 */
export class RedisLeaderLease {
  private readonly redis: ScriptedRedis;
  private readonly keys: RedisKeys;
  private token: number | null = null;

  constructor(
    redis: RedisClient,
    prefix: string,
    readonly candidateId: string,
    private readonly ttlMs: number,
  ) {
    this.redis = defineScripts(redis);
    this.keys = redisKeys(prefix);
  }

  /** Takes or renews the lease: the fencing token while this candidate leads, else null. */
  async tryLead(): Promise<number | null> {
    const { controllerLeader, controllerFence } = this.keys;
    const held = this.token === null ? "" : String(this.token);
    const token = Number(
      await this.redis.oahLeaderLease(controllerLeader, controllerFence, this.candidateId, this.ttlMs, held),
    );
    this.token = token > 0 ? token : null;
    return this.token;
  }

  /** Whether the lease is still this candidate's, under this token: asked before acting on it. */
  async stillLeads(token: number): Promise<boolean> {
    return (await this.redis.get(this.keys.controllerLeader)) === this.fenceOf(token);
  }

  /** The current leader, for the standbys' /readyz and the snapshot. */
  async leader(): Promise<LeaderView> {
    const value = await this.redis.get(this.keys.controllerLeader);
    if (value === null) return { leaderId: null, token: null };
    const space = value.indexOf(" ");
    return { leaderId: value.slice(space + 1), token: Number(value.slice(0, space)) };
  }

  /**
   * The lease's value while this candidate holds it under `token` (as leader-lease-2.lua writes
   * it): what the fenced writes (fenced-hset-2.lua) compare with the current lease.
   */
  fenceOf(token: number): string {
    return `${token} ${this.candidateId}`;
  }

  /** Gives the lease up at once (a clean shutdown), so that a standby need not wait for the TTL. */
  async resign(): Promise<void> {
    if (this.token === null) return;
    await this.redis.oahReleaseHeld(this.keys.controllerLeader, this.fenceOf(this.token));
    this.token = null;
  }
}
