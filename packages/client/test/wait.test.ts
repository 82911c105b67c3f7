// @module-tag unit

import { describe, expect, it } from "vitest";
import { createClient, isOahApiError, OahWaitTimeout } from "../src";
import { fakeFetch, json, RUN_ID, runWith } from "./fake-fetch";

const BASE = "http://api.test";

/** A fake API whose run goes through `statuses`, one per read, and stays at the last. */
function runThrough(...statuses: string[]) {
  let reads = 0;
  return fakeFetch(() => {
    const status = statuses[Math.min(reads++, statuses.length - 1)];
    return json(200, { run: runWith({ status }) });
  });
}

describe("wait", () => {
  it("reads the run until it ends, and resolves with it", async () => {
    const { fetch, seen } = runThrough("queued", "running", "running", "completed");
    const run = await createClient({ baseUrl: BASE, fetch }).wait(RUN_ID, { intervalMs: 1 });
    expect(run.status).toBe("completed");
    expect(seen).toHaveLength(4);
  });

  it.each(["failed", "cancelled", "timed_out"])("takes %s as an end too", async (status) => {
    const { fetch } = runThrough("running", status);
    expect((await createClient({ baseUrl: BASE, fetch }).wait(RUN_ID, { intervalMs: 1 })).status).toBe(
      status,
    );
  });

  it("waits for the statuses asked for", async () => {
    const { fetch, seen } = runThrough("queued", "running", "waiting_tool", "completed");
    const run = await createClient({ baseUrl: BASE, fetch }).wait(RUN_ID, {
      until: ["waiting_tool"],
      intervalMs: 1,
    });
    expect(run.status).toBe("waiting_tool");
    expect(seen).toHaveLength(3);
  });

  it("rejects with OahWaitTimeout, naming the run and its last status", async () => {
    const { fetch } = runThrough("running");
    const started = Date.now();
    const error = await createClient({ baseUrl: BASE, fetch })
      .wait(RUN_ID, { timeoutMs: 100, intervalMs: 10 })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(OahWaitTimeout);
    const e = error as OahWaitTimeout;
    expect(e.name).toBe("OahWaitTimeout");
    expect({ runId: e.runId, timeoutMs: e.timeoutMs, last: e.lastRun?.status }).toEqual({
      runId: RUN_ID,
      timeoutMs: 100,
      last: "running",
    });
    expect(e.until).toEqual(["completed", "failed", "cancelled", "timed_out"]);
    expect(e.message).toBe(
      `run ${RUN_ID} did not reach completed or failed or cancelled or timed_out within 100 ms (last seen running)`,
    );
  });

  it("gives up on a read that does not answer when the time is up", async () => {
    const { fetch } = fakeFetch(
      (_request, init) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );
    const error = await createClient({ baseUrl: BASE, fetch })
      .wait(RUN_ID, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OahWaitTimeout);
    expect((error as OahWaitTimeout).lastRun).toBeUndefined();
    expect((error as Error).message).toMatch(/within 50 ms$/);
  });

  it("stops when its signal aborts, with the signal's reason", async () => {
    const { fetch } = runThrough("running");
    const controller = new AbortController();
    const waiting = createClient({ baseUrl: BASE, fetch }).wait(RUN_ID, {
      intervalMs: 5,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("no longer needed")), 30);
    await expect(waiting).rejects.toThrow("no longer needed");

    const { fetch: unused, seen } = runThrough("running");
    await expect(
      createClient({ baseUrl: BASE, fetch: unused }).wait(RUN_ID, { signal: AbortSignal.abort("gone") }),
    ).rejects.toBe("gone");
    expect(seen).toEqual([]);
  });

  it("passes on the API's refusal of a read", async () => {
    const { fetch } = fakeFetch(() =>
      json(404, { error: { code: "run_not_found", message: "no such run" } }),
    );
    const error = await createClient({ baseUrl: BASE, fetch })
      .wait(RUN_ID)
      .catch((e: unknown) => e);
    expect(isOahApiError(error, "run_not_found")).toBe(true);
  });
});
