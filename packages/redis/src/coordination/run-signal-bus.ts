import type { RunSignal, RunSignalBus } from "@oah/coordination";
import type { RedisClient } from "../client";
import { redisKeys } from "../keys";
import { PubSubChannel } from "./pubsub-channel";

const KINDS = new Set<RunSignal["kind"]>(["cancel", "interrupt", "tool_result"]);

function decode(message: string): RunSignal | null {
  const [kind, runId] = message.split(" ") as [RunSignal["kind"], string | undefined];
  return KINDS.has(kind) && runId ? { kind, runId } : null;
}

/** Run signals over Redis pub/sub, as `<kind> <runId>` messages on one channel. */
export class RedisRunSignalBus implements RunSignalBus {
  private readonly channel: PubSubChannel<RunSignal>;

  constructor(redis: RedisClient, prefix: string) {
    this.channel = new PubSubChannel(redis, redisKeys(prefix).signalChannel, decode);
  }

  async publish(signal: RunSignal): Promise<void> {
    await this.channel.publish(`${signal.kind} ${signal.runId}`);
  }

  subscribe(listener: (signal: RunSignal) => void): () => void {
    return this.channel.subscribe(listener);
  }

  /** Resolves once this host receives signals. */
  ready(): Promise<void> {
    return this.channel.ready();
  }

  async close(): Promise<void> {
    this.channel.close();
  }
}
