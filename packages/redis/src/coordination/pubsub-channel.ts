import { type RedisClient, subscriberOf } from "../client";

/**
 * One Redis pub/sub channel of a process, with its listeners: its subscriber connection is
 * made at once and subscribes at the first listener; ioredis restores the subscription
 * after a reconnection. Messages the decoder does not take are dropped.
 */
export class PubSubChannel<T> {
  private readonly subscriber: RedisClient;
  private readonly listeners = new Set<(message: T) => void>();
  private subscribed: Promise<unknown> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly channel: string,
    decode: (message: string) => T | null,
  ) {
    this.subscriber = subscriberOf(redis);
    this.subscriber.on("error", () => {});
    this.subscriber.on("message", (from: string, text: string) => {
      if (from !== this.channel) return;
      const message = decode(text);
      if (message === null) return;
      for (const listener of this.listeners) listener(message);
    });
  }

  publish(text: string): Promise<number> {
    return this.redis.publish(this.channel, text);
  }

  subscribe(listener: (message: T) => void): () => void {
    this.listeners.add(listener);
    this.subscribed ??= this.subscriber.subscribe(this.channel).catch(() => {});
    return () => this.listeners.delete(listener);
  }

  /** Resolves once this process receives the channel's messages. */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  close(): void {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
