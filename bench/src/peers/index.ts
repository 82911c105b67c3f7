import type { Services } from "../services";
import { BullmqPeer } from "./bullmq";
import { GraphilePeer } from "./graphile";
import { OahEmbeddedSqlite } from "./oah-embedded-sqlite";
import { OahRedisPgEmbedded } from "./oah-redis-pg-embedded";
import { OahSnapshots } from "./oah-snapshots";
import { OahSplit } from "./oah-split";
import { PgBossPeer } from "./pg-boss";
import type { Peer, PeerId } from "./types";

export const PEER_LABELS: Record<PeerId, string> = {
  oahRedisPg: "oah Redis+PG (embedded pool)",
  oahSplit: "oah split (api-only + sandboxes)",
  oahEmbedded: "oah embedded (SQLite)",
  bullmq: "BullMQ",
  bullmqFsync: "BullMQ on an fsync'd Redis",
  pgBossStrictFifo: "pg-boss, key_strict_fifo",
  graphileNamedQueues: "graphile-worker, named queues",
};

export function createPeer(id: PeerId, services: Services, snapshots: OahSnapshots): Peer {
  switch (id) {
    case "oahRedisPg":
      return new OahRedisPgEmbedded(services, snapshots);
    case "oahSplit":
      return new OahSplit(services, snapshots);
    case "oahEmbedded":
      return new OahEmbeddedSqlite(snapshots);
    case "bullmq":
      return new BullmqPeer(services);
    case "bullmqFsync":
      return new BullmqPeer(services, { durable: true });
    case "pgBossStrictFifo":
      return new PgBossPeer(services);
    case "graphileNamedQueues":
      return new GraphilePeer(services);
  }
}

export { type JobSpec, type JobTiming, PEER_IDS, type Peer, type PeerId } from "./types";
export { OahSnapshots };
