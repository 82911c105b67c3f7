// @module-tag system

import { createServer } from "node:net";
import { waitFor } from "@oah/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { createClient, isOahApiError, OahApiError, type OahClient, OahNetworkError } from "../src";
import { embeddedApi, refusal } from "./embedded-api";

const TOKEN = "client-test-5d8e2a91-c4f7-4b3e-a06d-97f1e2b8c3d4";
const UNKNOWN_RUN = `run_${"0".repeat(26)}`;

/** A loopback port nothing listens on: one the system gave out, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

describe("@oah/client against an embedded oah-api", () => {
  const api = embeddedApi(TOKEN);
  let client: OahClient;
  beforeAll(() => {
    client = api.client;
  });

  it("submits a run, waits until it completes, and reads it, its events and its session back", async () => {
    const request = {
      input: { steps: [{ type: "output" as const, value: { done: true } }] },
      idempotencyKey: "k1",
    };
    const { run, created } = await client.submit("client:a", request);
    expect(created).toBe(true);
    expect(run).toMatchObject({ sessionId: "client:a", seq: 1, executor: "script", status: "queued" });

    const done = await client.wait(run.id, { timeoutMs: 30_000, intervalMs: 50 });
    expect(done).toMatchObject({ id: run.id, status: "completed", output: { done: true } });
    expect(await client.get(run.id)).toEqual(done);

    // The same idempotency key and body answer with the run it made.
    const again = await client.submit("client:a", request);
    expect({ created: again.created, id: again.run.id }).toEqual({ created: false, id: run.id });

    const events = await client.listEvents(run.id);
    const types = events.items.map((e) => e.type);
    expect(types[0]).toBe("run.queued");
    expect(types).toContain("run.started");
    expect(types.at(-1)).toBe("run.completed");
    const ids = events.items.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.nextCursor).toBeNull();

    // Page by page, the same events in the same order.
    const paged = [];
    let after: number | undefined;
    for (;;) {
      const page = await client.listEvents(run.id, { after, limit: 1 });
      paged.push(...page.items);
      if (page.nextCursor === null || page.items.length === 0) break;
      after = page.nextCursor;
    }
    expect(paged).toEqual(events.items);

    const runs = await client.listRuns("client:a");
    expect(runs.items.map((r) => r.id)).toEqual([run.id]);
    expect(Array.isArray(await client.steps(run.id))).toBe(true);
  });

  it("cancels a long run and waits until it is cancelled", async () => {
    const { run } = await client.submit("client-b", { input: { steps: [{ type: "sleep", ms: 30_000 }] } });
    const running = await client.wait(run.id, { until: ["running"], timeoutMs: 20_000, intervalMs: 50 });
    expect(running.status).toBe("running");
    const cancel = await client.cancel(run.id);
    expect(cancel.runId).toBe(run.id);
    const ended = await client.wait(run.id, { timeoutMs: 20_000, intervalMs: 50 });
    expect(ended.status).toBe("cancelled");
    expect(ended.cancelRequestedAt).not.toBeNull();
  });

  it("delivers a tool result to a run waiting for it", async () => {
    const { run } = await client.submit("client-c", {
      input: {
        steps: [
          { type: "wait_tool", name: "approve" },
          { type: "output", value: 1 },
        ],
      },
    });
    const waiting = await client.wait(run.id, { until: ["waiting_tool"], timeoutMs: 20_000, intervalMs: 50 });
    expect(waiting.waitingTool).toBe("approve");

    const wrong = await refusal(client.submitToolResult(run.id, "deny", {}));
    expect(isOahApiError(wrong, "tool_result_wrong_name")).toBe(true);

    expect(await client.submitToolResult(run.id, "approve", { approved: true })).toEqual({
      runId: run.id,
      name: "approve",
      status: "accepted",
    });
    const done = await client.wait(run.id, { timeoutMs: 20_000, intervalMs: 50 });
    expect(done).toMatchObject({ status: "completed", output: 1 });
    expect((await client.listEvents(run.id)).items.map((e) => e.type)).toEqual(
      expect.arrayContaining(["run.waiting_tool", "run.resumed", "run.completed"]),
    );
  });

  it("refuses with typed errors: the API's code, status, message and issues", async () => {
    const notFound = await refusal(client.get(UNKNOWN_RUN));
    expect(notFound).toBeInstanceOf(OahApiError);
    expect(notFound).toMatchObject({ code: "run_not_found", status: 404 });
    expect((notFound as OahApiError).body).toMatchObject({ error: { code: "run_not_found" } });

    const { run } = await client.submit("client-d", { input: { steps: [] } });
    await client.wait(run.id, { timeoutMs: 20_000, intervalMs: 50 });
    const requeue = await refusal(client.requeue(run.id, { requestedBy: "client-test" }));
    expect(isOahApiError(requeue, "run_requeue_invalid_status")).toBe(true);
    expect(requeue).toMatchObject({ status: 409 });

    const wrongToken = createClient({ baseUrl: api.url, token: `x${TOKEN.slice(1)}` });
    const unauthorized = await refusal(wrongToken.get(run.id));
    expect(unauthorized).toMatchObject({ code: "unauthorized", status: 401 });
    const noToken = await refusal(createClient({ baseUrl: api.url }).pool());
    expect(noToken).toMatchObject({ code: "unauthorized", status: 401 });

    const invalid = await refusal(
      client.submit("client-d", { input: { steps: [{ type: "sleep", ms: -1 }] } }),
    );
    expect(invalid).toMatchObject({ code: "invalid_request", status: 400 });
    expect((invalid as OahApiError).issues).toEqual([
      { path: "input.steps.0.ms", message: expect.any(String) },
    ]);
    const badSession = await refusal(client.listRuns("no spaces"));
    expect((badSession as OahApiError).issues?.map((i) => i.path)).toEqual(["sessionId"]);

    const host = await refusal(client.cordon("no-such-host"));
    expect(host).toMatchObject({ code: "host_not_found", status: 404 });
    expect(isOahApiError(await refusal(client.drain("no-such-host")), "host_not_found")).toBe(true);
  });

  it("reports a network error, with its cause, where nothing listens", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await refusal(createClient({ baseUrl: url, token: TOKEN }).get(UNKNOWN_RUN));
    expect(error).toBeInstanceOf(OahNetworkError);
    expect(isOahApiError(error)).toBe(false);
    expect((error as OahNetworkError).url).toBe(`${url}/api/v1/runs/${UNKNOWN_RUN}`);
    expect((error as Error).cause).toBeDefined();
  });

  it("reads the pool, and cordons and uncordons the API's own host", async () => {
    const pool = await waitFor("the host's pool report", async () => {
      const p = await client.pool();
      return p.hosts.length > 0 && p;
    });
    expect(pool.controller).toBeNull();
    const hostId = pool.hosts[0]!.hostId;
    expect(await client.cordon(hostId)).toEqual({ hostId, state: "cordoned" });
    expect(await client.uncordon(hostId)).toEqual({ hostId, state: "active" });
    await waitFor("the host active again", async () => {
      const p = await client.pool();
      return p.hosts.find((h) => h.hostId === hostId)?.state === "active";
    });
    const { run } = await client.submit("client-e", {
      input: { steps: [{ type: "output", value: "after" }] },
    });
    expect((await client.wait(run.id, { timeoutMs: 20_000, intervalMs: 50 })).status).toBe("completed");
  });
});
