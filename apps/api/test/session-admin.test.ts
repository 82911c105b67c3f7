// @module-tag system

import type { CancelQueuedResult, JamRepair, JamReport, SessionInspection } from "@oah/contract";
import { JAM_KINDS } from "@oah/core";
import { waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, type Backend, startApi } from "./support";

/** The embedded backends (in-process queue), and Redis: the same answers from each (docs/spec.md §9, §7). */
describe.each(["sqlite", "redis"] as Backend[])("session inspector and jams on %s", (backend) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi(backend, {
      OAH_WORKERS_MIN: "1",
      OAH_WORKERS_MAX: "1",
      // Runs count as waiting long, and active ones as stale, after 1.5 s.
      OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
      OAH_STALE_RUN_AFTER_MS: "1500",
    });
  });
  afterAll(() => t?.dispose());

  const inspect = (sessionId: string) =>
    t.client.get<SessionInspection>(`/api/v1/sessions/${sessionId}/inspect`);

  it("shows a running session's lock holder, its runs in order and its head; cancels its queued runs from a position on", async () => {
    const submit = async (ms: number) =>
      (await t.oah.submit("inspected", { input: { steps: [{ type: "sleep", ms }] } })).run;
    const running = await submit(30_000);
    const queued = [await submit(1), await submit(1), await submit(1)];
    await t.oah.wait(running.id, { until: ["running"] });
    const { status, body } = await inspect("inspected");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      sessionId: "inspected",
      head: running.id,
      lock: {
        holder: running.id,
        workerId: expect.stringMatching(/\/w\d+$/),
        hostId: expect.stringMatching(/^api-/),
        claimedAt: expect.any(String),
        ttlMs: expect.any(Number),
      },
      // The session is locked: it does not wait in line.
      ready: null,
    });
    expect(body.runs.map((r) => [r.id, r.position, r.status, r.inQueue])).toEqual([
      [running.id, 1, "running", false],
      ...queued.map((r, i) => [r.id, i + 2, "queued", true]),
    ]);

    const cancel = await t.client.post<CancelQueuedResult>("/api/v1/sessions/inspected/cancel-queued", {
      fromPosition: 3,
    });
    expect(cancel).toEqual({
      status: 200,
      body: { sessionId: "inspected", cancelled: [queued[1]!.id, queued[2]!.id] },
    });
    expect((await inspect("inspected")).body.runs.map((r) => [r.status, r.inQueue])).toEqual([
      ["running", false],
      ["queued", true],
      ["cancelled", false],
      ["cancelled", false],
    ]);
    const all = await t.client.post<CancelQueuedResult>("/api/v1/sessions/inspected/cancel-queued", {});
    expect(all.body.cancelled).toEqual([queued[0]!.id]);
    await t.oah.cancel(running.id);
    await t.oah.wait(running.id);
    const audit = await t.client.get<{ items: { target: string; params: object; outcome: object }[] }>(
      "/api/v1/audit?action=session.cancel_queued",
    );
    expect(audit.body.items.map((e) => [e.target, e.params, e.outcome])).toEqual([
      ["inspected", { sessionId: "inspected" }, { ok: true, cancelled: 1 }],
      ["inspected", { sessionId: "inspected", fromPosition: 3 }, { ok: true, cancelled: 2 }],
    ]);
  });

  it("shows a session waiting in line", async () => {
    const blocker = (await t.oah.submit("busy", { input: { steps: [{ type: "sleep", ms: 30_000 }] } })).run;
    await t.oah.wait(blocker.id, { until: ["running"] });
    const waiting = (await t.oah.submit("waiting", { input: { steps: [] } })).run;
    const { body } = await inspect("waiting");
    expect(body).toMatchObject({
      head: waiting.id,
      lock: null,
      ready: { lane: "normal", workspaceId: "default" },
    });
    expect(Date.parse(body.ready!.since)).toBeLessThanOrEqual(Date.now() + 5);
    await t.oah.cancel(blocker.id);
    await t.oah.wait(waiting.id);
  });

  it("answers 404 session_not_found for an unknown session, 400 for a bad id or kind", async () => {
    expect(await inspect("nobody-here")).toMatchObject({
      status: 404,
      body: { error: { code: "session_not_found" } },
    });
    expect(await t.client.post("/api/v1/sessions/nobody-here/cancel-queued", {})).toMatchObject({
      status: 404,
      body: { error: { code: "session_not_found" } },
    });
    expect(await t.client.post("/api/v1/sessions/x/cancel-queued", { fromPosition: 0 })).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request" } },
    });
    expect(await t.client.post("/api/v1/health/jams/no_such_kind/repair", {})).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request" } },
    });
  });

  it("lists no jams in a clean queue, counts them in the overview and /metrics, and repairs nothing", async () => {
    // A run waiting behind a parked one waits for it, long as that takes: no lost wake.
    const parked = (await t.oah.submit("parked", { input: { steps: [{ type: "wait_tool", name: "go" }] } }))
      .run;
    const behind = (await t.oah.submit("parked", { input: { steps: [] } })).run;
    await t.oah.wait(parked.id, { until: ["waiting_tool"] });
    // A tick of the pool after the run behind had waited longer than OAH_STALE_RUN_AFTER_MS: by
    // the host's clock it waits long (the jam scan looks at it), and the pool had its chance to claim it.
    const waitedLong = Date.parse(behind.createdAt) + 1_500;
    await waitFor("a pool tick after the run behind had waited long", async () => {
      const [snapshot] = (await t.oah.pool()).hosts;
      return snapshot !== undefined && snapshot.at > waitedLong;
    });
    const { body } = await t.client.get<JamReport>("/api/v1/health/jams");
    expect(body.classes).toEqual(JAM_KINDS.map((kind) => ({ kind, count: 0, sessions: [] })));
    const overview = await t.client.get<{ jams: object }>("/api/v1/storage/overview");
    expect(overview.body.jams).toEqual(Object.fromEntries(JAM_KINDS.map((k) => [k, 0])));
    const metrics = await waitFor("the jam gauge", async () => {
      const text = await (await fetch(`${t.api.url}/metrics`)).text();
      return text.includes("oah_jammed_sessions{") && text;
    });
    for (const kind of JAM_KINDS) expect(metrics).toContain(`oah_jammed_sessions{kind="${kind}"} 0`);
    await t.oah.submitToolResult(parked.id, "go", 1);
    expect((await t.oah.wait(behind.id)).status).toBe("completed");
    for (const kind of JAM_KINDS) {
      const repair = await t.client.post<JamRepair>(`/api/v1/health/jams/${kind}/repair`, {});
      expect(repair).toEqual({
        status: 200,
        body: { kind, repaired: 0, skipped: 0, sessions: { repaired: [], skipped: [] } },
      });
    }
  });
});
