import { redisKeys } from "@oah/queue";
import type { Redis } from "ioredis";
import type { CancelBus } from "../coordination/cancel-bus";

/** Cancel requests over Redis pub/sub; a host missing one still finds it by its heartbeat's store check. */
export class RedisCancelBus implements CancelBus {
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly listeners = new Set<(runId: string) => void>();
  private subscribed: Promise<unknown> | undefined;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.channel = redisKeys(prefix).cancelChannel;
    // Subscriptions are restored by ioredis after a reconnection.
    this.subscriber = redis.duplicate({
      lazyConnect: false,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    });
    this.subscriber.on("error", () => {});
    this.subscriber.on("message", (channel: string, runId: string) => {
      if (channel !== this.channel) return;
      for (const listener of this.listeners) listener(runId);
    });
  }

  async publish(runId: string): Promise<void> {
    await this.redis.publish(this.channel, runId);
  }

  subscribe(listener: (runId: string) => void): () => void {
    this.listeners.add(listener);
    this.subscribed ??= this.subscriber.subscribe(this.channel).catch(() => {});
    return () => this.listeners.delete(listener);
  }

  /** Resolves once this host receives cancels. */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
