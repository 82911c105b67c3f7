import type { RunSignal, RunSignalBus } from "@oah/engine";
import { type RedisClient, subscriberOf } from "../client";
import { redisKeys } from "../keys";

const KINDS = new Set<RunSignal["kind"]>(["cancel", "tool_result"]);

/** Run signals over Redis pub/sub, as `<kind> <runId>` messages on one channel. */
export class RedisRunSignalBus implements RunSignalBus {
  private readonly subscriber: RedisClient;
  private readonly channel: string;
  private readonly listeners = new Set<(signal: RunSignal) => void>();
  private subscribed: Promise<unknown> | undefined;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.channel = redisKeys(prefix).signalChannel;
    // Subscriptions are restored by ioredis after a reconnection.
    this.subscriber = subscriberOf(redis);
    this.subscriber.on("error", () => {});
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const [kind, runId] = message.split(" ") as [RunSignal["kind"], string | undefined];
      if (!KINDS.has(kind) || !runId) return;
      for (const listener of this.listeners) listener({ kind, runId });
    });
  }

  async publish(signal: RunSignal): Promise<void> {
    await this.redis.publish(this.channel, `${signal.kind} ${signal.runId}`);
  }

  subscribe(listener: (signal: RunSignal) => void): () => void {
    this.listeners.add(listener);
    this.subscribed ??= this.subscriber.subscribe(this.channel).catch(() => {});
    return () => this.listeners.delete(listener);
  }

  /** Resolves once this host receives signals. */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
