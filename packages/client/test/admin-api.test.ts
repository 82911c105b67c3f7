// @module-tag system

import { waitFor } from "@oah/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { isOahApiError, type OahClient } from "../src";
import { embeddedApi, refusal } from "./embedded-api";

const TOKEN = "client-admin-test-3b1c9e7a-52d4-4f0e-8a6b-c1d2e3f4a5b6";
const FAILING = { input: { steps: [{ type: "fail" as const, message: "on purpose" }] } };

describe("@oah/client's operator calls against an embedded oah-api", () => {
  const api = embeddedApi(TOKEN);
  let client: OahClient;
  beforeAll(() => {
    client = api.client;
  });

  it("finds runs by filter, requeues and cancels them one by one and by a bulk job, and reads the audit log of it", async () => {
    expect(await client.whoami()).toEqual({ name: "admin", role: "admin" });

    const { run } = await client.submit("ops:a", FAILING);
    const other = (await client.submit("ops:b", { input: { steps: [] } })).run;
    await client.wait(run.id, { timeoutMs: 20_000, intervalMs: 50 });
    await client.wait(other.id, { timeoutMs: 20_000, intervalMs: 50 });

    const page = await client.listStorageRuns({ status: ["failed", "timed_out"], sessionId: "ops:a" });
    expect(page.items.map((r) => [r.id, r.status])).toEqual([[run.id, "failed"]]);
    expect(page.appliedFilters).toMatchObject({ status: ["failed", "timed_out"], sessionId: "ops:a" });
    const overview = await client.overview();
    expect(overview.statusCounts).toMatchObject({ failed: 1, completed: 1 });
    expect(overview.jams).toMatchObject({ orphan_lock: 0, lost_run: 0 });

    // A requeue by hand is for runs that recovery gave up on: these two are refused, each with its reason.
    const [failed, completed] = await client.requeueMany([run.id, other.id], { requestedBy: "ops-lead" });
    expect(failed).toMatchObject({ runId: run.id, status: "error", errorCode: "run_requeue_not_supported" });
    expect(completed).toMatchObject({ runId: other.id, status: "error" });
    const dry = await client.bulkDryRun({ action: "requeue", filter: { sessionId: "ops:a" } });
    expect(dry).toEqual({
      matched: 1,
      outcomes: { run_requeue_not_supported: 1 },
      examples: { run_requeue_not_supported: [run.id] },
    });

    const sleeping = (await client.submit("ops:d", { input: { steps: [{ type: "sleep", ms: 30_000 }] } }))
      .run;
    const queued = [
      (await client.submit("ops:d", { input: { steps: [] } })).run.id,
      (await client.submit("ops:d", { input: { steps: [] } })).run.id,
    ];
    await client.wait(sleeping.id, { until: ["running"], timeoutMs: 20_000, intervalMs: 50 });
    const filter = { sessionId: "ops:d" };
    const job = await client.startBulkAction({ action: "cancel", filter, requestedBy: "ops-lead" });
    expect(job).toMatchObject({
      action: "cancel",
      total: 3,
      filter,
      requestedBy: "admin",
      claimedBy: "ops-lead",
    });
    const done = await waitFor("the bulk job's end", async () => {
      const j = await client.getBulkAction(job.id);
      return j.status !== "running" && j;
    });
    expect(done).toMatchObject({
      status: "completed",
      done: 3,
      outcomes: { cancelled: 2, cancel_requested: 1 },
    });
    expect((await client.listBulkActions({ limit: 5 })).map((j) => j.id)).toEqual([job.id]);
    const items = (await client.listBulkActionItems(job.id, { outcome: "cancelled" })).items;
    expect(items.map((i) => i.runId).sort()).toEqual([...queued].sort());
    expect((await client.abortBulkAction(job.id)).status).toBe("completed");
    expect((await client.wait(sleeping.id, { timeoutMs: 20_000, intervalMs: 50 })).status).toBe("cancelled");

    const audit = await client.audit({ action: "run.requeue_many" });
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({ actor: "admin", role: "admin", action: "run.requeue_many" });
    const actions = (await client.audit({ actor: "admin" })).items.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["bulk.dry_run", "bulk.start", "bulk.abort"]));
    expect((await client.listStorageRuns({ sessionId: "ops:d", status: ["queued"] })).items).toEqual([]);
  });

  it("inspects a session, cancels its queued runs, and reads and repairs jams", async () => {
    const first = (await client.submit("ops:c", { input: { steps: [{ type: "sleep", ms: 30_000 }] } })).run;
    const second = (await client.submit("ops:c", { input: { steps: [] } })).run;
    const third = (await client.submit("ops:c", { input: { steps: [] } })).run;
    await client.wait(first.id, { until: ["running"], timeoutMs: 20_000, intervalMs: 50 });

    const inspection = await client.inspectSession("ops:c");
    expect(inspection.head).toBe(first.id);
    expect(inspection.runs.map((r) => [r.id, r.position, r.status])).toEqual([
      [first.id, 1, "running"],
      [second.id, 2, "queued"],
      [third.id, 3, "queued"],
    ]);
    expect(inspection.lock?.holder).toBe(first.id);

    expect(await client.cancelQueued("ops:c", { fromPosition: 3 })).toEqual({
      sessionId: "ops:c",
      cancelled: [third.id],
    });
    expect((await client.get(third.id)).status).toBe("cancelled");
    expect((await client.get(second.id)).status).toBe("queued");
    await client.cancel(first.id);
    expect((await client.wait(second.id, { timeoutMs: 20_000, intervalMs: 50 })).status).toBe("completed");

    const jams = await client.jams();
    expect(jams.classes.map((c) => c.count)).toEqual(jams.classes.map(() => 0));
    expect(await client.repairJams("orphan_lock")).toMatchObject({ kind: "orphan_lock", repaired: 0 });
    expect(await client.deadLetters()).toMatchObject({ groups: [] });
  });

  it("refuses a rollout without a controller, and names a missing rollout or bulk job", async () => {
    const rollout = await refusal(client.rollout({ requestedBy: "ops" }));
    expect(isOahApiError(rollout, "controller_unavailable")).toBe(true);
    const missing = await refusal(client.rolloutProgress(`rollout_${"0".repeat(26)}`));
    expect(missing).toMatchObject({ code: "rollout_not_found", status: 404 });
    const job = await refusal(client.getBulkAction(`bulk_${"0".repeat(26)}`));
    expect(job).toMatchObject({ code: "bulk_job_not_found", status: 404 });
    const filter = await refusal(client.listStorageRuns({ status: ["no_such" as never] }));
    expect(filter).toMatchObject({ code: "invalid_request", status: 400 });
  });
});
