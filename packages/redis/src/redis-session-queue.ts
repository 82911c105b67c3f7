import { randomBytes } from "node:crypto";
import {
  byReadySessions,
  type QueuePressure,
  type QueueSurvey,
  type ReleaseOptions,
  type SessionClaim,
  type SessionLock,
  type SessionQueue,
  type SessionQueueView,
  Waiters,
  type WorkspaceReadySessions,
} from "@oah/coordination";
import { DEFAULT_FAIR_SHARE, type FairShare, type QueueEntry, type RunPriority } from "@oah/core";
import { type RedisClient, subscriberOf } from "./client";
import { FairShareConfig } from "./fair-share-config";
import { type RedisKeys, redisKeys } from "./keys";
import { defineScripts, type ScriptedRedis } from "./scripts";

export interface RedisSessionQueueOptions {
  /** Commands go through this connection; a duplicate of it subscribes to wake announcements. */
  redis: RedisClient;
  prefix: string;
  lockTtlMs: number;
  /** Weights and caps by workspace (default: equal weights, no caps); the same on every host. */
  fairShare?: FairShare;
}

/** Ready entries and workspaces a claim may look at (dropping locked or empty entries) before it gives up. */
const CLAIM_MAX_SCAN = 32;
/**
 * Workspaces whose sleep is due (a lapsed lock's) that a claim wakes first, the next
 * claims waking the rest: every claim that finds no workspace claimable, and one in
 * CLAIM_WAKE_EVERY of the others, lest a workspace woken late wait behind busy ones.
 */
const CLAIM_MAX_WAKE = 4;
const CLAIM_WAKE_EVERY = 8;
/** Ready entries per lane the pressure read inspects for locked and empty sessions. */
const PRESSURE_SAMPLE = 100;
/**
 * The SessionQueue over Redis: each operation is one Lua script (lua/), run by
 * SHA. Each session that becomes ready is announced on a pub/sub channel; every
 * host wakes one of its idle workers per announcement (one that is too late finds
 * nothing and waits again). Announcements cannot be lost to a host that is dead
 * or frozen, as tokens popped from a list could.
 */
export class RedisSessionQueue implements SessionQueue {
  private readonly redis: ScriptedRedis;
  private readonly subscriber: RedisClient;
  private readonly keys: RedisKeys;
  private readonly lockTtlMs: number;
  private readonly fairShare: FairShareConfig;
  private readonly waiters = new Waiters();
  private subscribedOnce = false;
  private readonly subscription: Promise<void>;
  private closed = false;
  /**
   * A claim's nonce: random for this queue object, then counted, so that a token
   * never repeats even when Redis has lost its counter (no random bytes per claim).
   */
  private readonly noncePrefix = randomBytes(6).toString("hex");
  private claims = 0;

  constructor(options: RedisSessionQueueOptions) {
    this.redis = defineScripts(options.redis);
    this.keys = redisKeys(options.prefix);
    // Subscriptions are restored by ioredis after a reconnection; what was announced
    // meanwhile is unknown, so every idle worker looks once.
    this.subscriber = subscriberOf(options.redis);
    this.subscriber.on("error", () => {});
    this.subscriber.on("message", (channel: string) => {
      if (channel === this.keys.wakeChannel) this.waiters.wakeOne();
    });
    this.subscriber.on("ready", () => {
      if (this.subscribedOnce) this.waiters.wakeAll();
    });
    this.subscription = this.subscriber.subscribe(this.keys.wakeChannel).then(
      () => {
        this.subscribedOnce = true;
      },
      () => {},
    );
    this.lockTtlMs = options.lockTtlMs;
    this.fairShare = new FairShareConfig(options.fairShare ?? DEFAULT_FAIR_SHARE);
  }

  private get laneKeys(): string[] {
    const k = this.keys;
    return [k.readySubagent, k.readyNormal, k.entries];
  }

  async enqueue(entries: readonly QueueEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const json = entries.map((e) => JSON.stringify(e));
    await this.fairShare.call((...share) =>
      this.redis.oahEnqueue(...this.laneKeys, this.keys.base, ...share, ...json),
    );
  }

  async claim(): Promise<SessionClaim | null> {
    const nonce = `${this.noncePrefix}${(++this.claims).toString(36)}`;
    const maxWake = this.claims % CLAIM_WAKE_EVERY === 0 ? CLAIM_MAX_WAKE : 0;
    const result = (await this.fairShare.call((...share) =>
      this.redis.oahClaim(
        ...this.laneKeys,
        this.keys.fence,
        this.keys.base,
        ...share,
        this.lockTtlMs,
        CLAIM_MAX_SCAN,
        maxWake,
        nonce,
      ),
    )) as [string, string, string, string, string] | null;
    if (!result) return null;
    const [sessionId, token, entry, readySince, workspaceId] = result;
    return {
      sessionId,
      token,
      workspaceId,
      entry: JSON.parse(entry) as QueueEntry,
      readySince: Number(readySince),
    };
  }

  async renewLocks(locks: readonly SessionLock[]): Promise<string[]> {
    if (locks.length === 0) return [];
    const triples = locks.flatMap((l) => [l.sessionId, l.token, l.workspaceId]);
    const k = this.keys;
    return (await this.fairShare.call((...share) =>
      this.redis.oahRenewLocks(k.readySubagent, k.readyNormal, k.base, ...share, this.lockTtlMs, ...triples),
    )) as string[];
  }

  async release(lock: SessionLock, options: ReleaseOptions = {}): Promise<boolean> {
    const held = await this.fairShare.call((...share) =>
      this.redis.oahRelease(
        ...this.laneKeys,
        this.keys.base,
        ...share,
        lock.sessionId,
        lock.token,
        lock.workspaceId,
        options.putBack ? JSON.stringify(options.putBack) : "",
        options.ready === false ? "0" : "1",
        options.readySince === undefined ? "" : String(options.readySince),
        options.ifSilentForMs === undefined ? "" : String(this.lockTtlMs - options.ifSilentForMs),
      ),
    );
    return held === 1;
  }

  async remove(sessionId: string, runId: string): Promise<boolean> {
    const removed = await this.fairShare.call((...share) =>
      this.redis.oahRemove(...this.laneKeys, this.keys.base, ...share, sessionId, runId),
    );
    return removed === 1;
  }

  async readyStranded(
    sessionIds: readonly string[],
    options: { blockerEnded?: boolean } = {},
  ): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    const blockerEnded = options.blockerEnded ? "1" : "0";
    return (await this.fairShare.call((...share) =>
      this.redis.oahReadyStranded(...this.laneKeys, this.keys.base, ...share, blockerEnded, ...sessionIds),
    )) as string[];
  }

  async readyByWorkspace(limit: number): Promise<WorkspaceReadySessions[]> {
    const k = this.keys;
    const pairs = (await this.redis.oahReadyByWorkspace(k.workspaces, k.workspacesAsleep, k.base, limit)) as (
      | string
      | number
    )[];
    const found: WorkspaceReadySessions[] = [];
    for (let i = 0; i < pairs.length; i += 2)
      found.push({ workspaceId: pairs[i] as string, readySessions: Number(pairs[i + 1]) });
    return found.sort(byReadySessions);
  }

  /** Resolves once this process hears wake announcements. */
  whenSubscribed(): Promise<void> {
    return this.subscription;
  }

  waitForWork(signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return Promise.resolve();
    // Not listening yet: anything announced so far was missed, so look again once listening.
    if (!this.subscribedOnce) return this.subscription;
    return this.waiters.wait(signal);
  }

  nudge(): void {
    this.waiters.wakeAll();
  }

  async pressure(): Promise<QueuePressure> {
    const k = this.keys;
    const pairs = (await this.redis.oahPressure(
      k.readySubagent,
      k.readyNormal,
      k.entries,
      k.base,
      PRESSURE_SAMPLE,
    )) as (string | number)[];
    const figures: Record<string, number> = {};
    for (let i = 0; i < pairs.length; i += 2) figures[pairs[i] as string] = Number(pairs[i + 1]);
    return figures as unknown as QueuePressure;
  }

  async inspect(sessionIds: readonly string[], maxEntries = 1_000): Promise<SessionQueueView[]> {
    if (sessionIds.length === 0) return [];
    const rows = (await this.redis.oahInspect(
      ...this.laneKeys,
      this.keys.base,
      maxEntries,
      ...sessionIds,
    )) as [string, string, number, string, string, string, string[]][];
    return rows.map(([sessionId, token, ttlMs, lane, since, workspaceId, entries]) => ({
      sessionId,
      lock: token === "" ? null : { token, ttlMs, silentMs: Math.max(0, this.lockTtlMs - ttlMs) },
      ready:
        lane === ""
          ? null
          : { lane: lane as RunPriority, since: Number(since), workspaceId: workspaceId || "default" },
      entries: entries.map((e) => JSON.parse(e) as QueueEntry),
    }));
  }

  async survey(limit: number): Promise<QueueSurvey> {
    const k = this.keys;
    const [locked, emptyReady] = (await this.redis.oahSurvey(
      k.readySubagent,
      k.readyNormal,
      k.base,
      limit,
    )) as [string[], string[]];
    return { locked: locked.slice(0, limit), emptyReady: emptyReady.slice(0, limit) };
  }

  async dropEmptyReady(sessionIds: readonly string[]): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    const k = this.keys;
    return (await this.fairShare.call((...share) =>
      this.redis.oahDropEmptyReady(k.readySubagent, k.readyNormal, k.base, ...share, ...sessionIds),
    )) as string[];
  }

  async *entries(batchSize = 500): AsyncIterable<QueueEntry[]> {
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.keys.entries, cursor, "COUNT", batchSize);
      cursor = next;
      const batch: QueueEntry[] = [];
      for (let i = 1; i < flat.length; i += 2) batch.push(JSON.parse(flat[i]!) as QueueEntry);
      if (batch.length > 0) yield batch;
    } while (cursor !== "0");
  }

  async size(): Promise<number> {
    return this.redis.hlen(this.keys.entries);
  }

  async lost(entries: readonly QueueEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    // Two reads in one round trip; a claim between them at worst defers a loss to the next reconcile.
    const [held, locks] = (await this.redis
      .pipeline()
      .hmget(this.keys.entries, ...entries.map((e) => e.runId))
      .mget(...entries.map((e) => this.keys.lock(e.sessionId)))
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value as (string | null)[];
    }) as [(string | null)[], (string | null)[]];
    return entries.filter((_, i) => held[i] === null && locks[i] === null).map((e) => e.runId);
  }

  async markLive(): Promise<boolean> {
    return (await this.redis.set(this.keys.marker, String(Date.now()), "NX")) === "OK";
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiters.wakeAll();
    this.subscriber.disconnect();
  }
}
