// @module-tag system

import pg from "pg";
import { expect, it } from "vitest";
import { startPrivatePostgres, startPrivateRedis } from "../src";

it("starts private Redis and PostgreSQL servers, and restarts PostgreSQL", async () => {
  const redis = await startPrivateRedis();
  expect(await redis.client.ping()).toBe("PONG");
  await redis.stop();
  const postgres = await startPrivatePostgres();
  try {
    const query = async () => {
      const client = new pg.Client(postgres.url);
      await client.connect();
      const { rows } = await client.query<{ x: number }>("SELECT 1 AS x");
      await client.end();
      return rows[0]!.x;
    };
    expect(await query()).toBe(1);
    await postgres.restart(200);
    expect(await query()).toBe(1);
  } finally {
    await postgres.stop();
  }
}, 60_000);
