// @module-tag system

import { randomBytes } from "node:crypto";
import { backendContract } from "@oah/coordination/backend-contract";
import { createTestRedis, type TestRedis, waitFor } from "@oah/testing";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RedisBackend, redisBackend } from "../src";

backendContract("Redis", async () => {
  const t = await createTestRedis();
  const backend = redisBackend(new Redis(t.url), { prefix: t.prefix, lockTtlMs: 10_000 });
  await backend.queue.whenSubscribed();
  return {
    backend,
    listening: async () => {
      await backend.signals.ready();
      await backend.events.ready();
    },
    dispose: async () => {
      await backend.close();
      await t.dispose();
    },
  };
});

describe("the Redis backend's connections", () => {
  let t: TestRedis;
  let name: string;
  let backend: RedisBackend;
  /** The connections to the server named `of`: the backend's command connection and its duplicates. */
  const connections = async (of = name) =>
    String(await t.client.client("LIST"))
      .split("\n")
      .filter((c) => c.includes(` name=${of} `)).length;

  beforeEach(async () => {
    t = await createTestRedis();
    name = `oah-backend-${randomBytes(4).toString("hex")}`;
    // The subscriber connections of the parts duplicate this one, name included.
    backend = redisBackend(new Redis(t.url, { connectionName: name }), {
      prefix: t.prefix,
      lockTtlMs: 10_000,
    });
  });
  afterEach(async () => {
    await backend.close();
    await t.dispose();
  });

  it("makes each part at its first use: the controller's parts open no subscriber for run signals or events", async () => {
    const { queue, orders, workers, board, controller } = backend;
    expect([queue, orders, workers, board, controller].every(Boolean)).toBe(true);
    await queue.whenSubscribed();
    // A connection opened after those parts are made: once it is counted, so would any they opened be.
    const later = new Redis(t.url, { connectionName: `${name}-later` });
    await waitFor("the later connection", async () => (await connections(`${name}-later`)) === 1, 5_000);
    later.disconnect();
    // The command connection and the queue's wake subscriber.
    expect(await connections()).toBe(2);
    backend.signals.subscribe(() => {});
    backend.events.subscribe(() => {});
    await backend.signals.ready();
    await backend.events.ready();
    expect(await connections()).toBe(4);
  });

  it("closes the connections of its parts, then its own", async () => {
    await backend.queue.whenSubscribed();
    backend.signals.subscribe(() => {});
    backend.events.subscribe(() => {});
    await backend.signals.ready();
    await backend.events.ready();
    expect(await connections()).toBe(4);
    await backend.close();
    await waitFor("no connection left", async () => (await connections()) === 0, 5_000);
  });
});
