import { randomBytes } from "node:crypto";
import type { QueueEntry } from "@oah/core";
import type { Redis } from "ioredis";
import type {
  QueuePressure,
  ReleaseOptions,
  SessionClaim,
  SessionLock,
  SessionQueue,
} from "../session-queue";
import { type RedisKeys, redisKeys } from "./keys";
import { defineScripts, type ScriptedRedis } from "./scripts";

export interface RedisSessionQueueOptions {
  /** Commands go through this connection; a duplicate of it blocks on wake tokens. */
  redis: Redis;
  prefix: string;
  lockTtlMs: number;
  now?: () => number;
}

/** Ready entries a claim may drop (locked or empty) before it gives up on a lane. */
const CLAIM_MAX_SCAN = 32;
/** Ready entries per lane the pressure read inspects for locked and empty sessions. */
const PRESSURE_SAMPLE = 100;
/** A blocking pop returns at least this often, so that the listener notices it has nobody left to wake. */
const WAKE_BLOCK_SECONDS = 1;
const RECONNECT_BACKOFF_MS = 500;

/**
 * The SessionQueue over Redis: each operation is one Lua script (lua/), run by
 * SHA; idle workers of this process share one blocking connection that pops
 * wake tokens and wakes one worker per token.
 */
export class RedisSessionQueue implements SessionQueue {
  private readonly redis: ScriptedRedis;
  private readonly blocking: Redis;
  private readonly keys: RedisKeys;
  private readonly lockTtlMs: number;
  private readonly now: () => number;
  private readonly waiters = new Set<() => void>();
  private listening = false;
  private closed = false;

  constructor(options: RedisSessionQueueOptions) {
    this.redis = defineScripts(options.redis);
    // Blocking pops wait out reconnections instead of failing: this connection only listens.
    this.blocking = options.redis.duplicate({
      lazyConnect: false,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    });
    this.blocking.on("error", () => {});
    this.keys = redisKeys(options.prefix);
    this.lockTtlMs = options.lockTtlMs;
    this.now = options.now ?? Date.now;
  }

  private get laneKeys(): string[] {
    const k = this.keys;
    return [k.readySubagent, k.readyNormal, k.entries, k.wake];
  }

  async enqueue(entries: readonly QueueEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.redis.oahEnqueue(
      ...this.laneKeys,
      this.keys.base,
      this.now(),
      ...entries.map((e) => JSON.stringify(e)),
    );
  }

  async claim(): Promise<SessionClaim | null> {
    const k = this.keys;
    const result = (await this.redis.oahClaim(
      k.readySubagent,
      k.readyNormal,
      k.entries,
      k.fence,
      k.base,
      this.lockTtlMs,
      CLAIM_MAX_SCAN,
      randomBytes(4).toString("hex"),
    )) as [string, string, string] | null;
    if (!result) return null;
    const [sessionId, token, entry] = result;
    return { sessionId, token, entry: JSON.parse(entry) as QueueEntry };
  }

  async renewLocks(locks: readonly SessionLock[]): Promise<string[]> {
    if (locks.length === 0) return [];
    return (await this.redis.oahRenewLocks(
      this.keys.base,
      this.lockTtlMs,
      ...locks.flatMap((l) => [l.sessionId, l.token]),
    )) as string[];
  }

  async release(sessionId: string, token: string, options: ReleaseOptions = {}): Promise<boolean> {
    const held = await this.redis.oahRelease(
      ...this.laneKeys,
      this.keys.base,
      sessionId,
      token,
      this.now(),
      options.putBack ? JSON.stringify(options.putBack) : "",
      options.ready === false ? "0" : "1",
    );
    return held === 1;
  }

  async remove(sessionId: string, runId: string): Promise<boolean> {
    return (await this.redis.oahRemove(...this.laneKeys, this.keys.base, sessionId, runId, this.now())) === 1;
  }

  waitForWork(signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
      void this.listen();
    });
  }

  /** Pops wake tokens while workers wait, one worker per token; a token nobody takes goes back. */
  private async listen(): Promise<void> {
    if (this.listening) return;
    this.listening = true;
    try {
      while (this.waiters.size > 0 && !this.closed) {
        let popped: [string, string] | null;
        try {
          popped = await this.blocking.brpop(this.keys.wake, WAKE_BLOCK_SECONDS);
        } catch {
          if (this.closed) break;
          await new Promise((r) => setTimeout(r, RECONNECT_BACKOFF_MS));
          continue;
        }
        if (!popped) continue;
        const [waiter] = this.waiters;
        if (waiter) waiter();
        else await this.redis.rpush(this.keys.wake, "1").catch(() => {});
      }
    } finally {
      this.listening = false;
    }
  }

  async pressure(): Promise<QueuePressure> {
    const k = this.keys;
    const [sub, normal, subLocked, subStale, normalLocked, normalStale, oldest] =
      (await this.redis.oahPressure(
        k.readySubagent,
        k.readyNormal,
        k.entries,
        k.base,
        PRESSURE_SAMPLE,
      )) as number[];
    const locked = subLocked! + normalLocked!;
    const stale = subStale! + normalStale!;
    return {
      readyQueueDepth: sub! + normal!,
      uniqueReadySessionCount: sub! + normal!,
      subagentReadySessionCount: sub! - subLocked! - subStale!,
      subagentReadyQueueDepth: sub!,
      lockedReadySessionCount: locked,
      staleReadySessionCount: stale,
      readySessionCount: sub! + normal! - locked - stale,
      oldestSchedulableReadyAgeMs: oldest! < 0 ? 0 : Math.max(0, this.now() - oldest!),
    };
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

  async absent(runIds: readonly string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    const found = await this.redis.hmget(this.keys.entries, ...runIds);
    return runIds.filter((_, i) => found[i] === null);
  }

  async markLive(): Promise<boolean> {
    return (await this.redis.set(this.keys.marker, String(Date.now()), "NX")) === "OK";
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter();
    this.blocking.disconnect();
  }
}
