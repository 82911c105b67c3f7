// @module-tag system

import type { BulkJob, Run, RunEvent } from "@oah/contract";
import { waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, callAs, namedToken, startApi } from "./support";

const PARKED = { input: { steps: [{ type: "wait_tool", name: "never" }] } };

/**
 * An operator who says someone else asks (`requestedBy`): the records name the operator, and
 * keep the name it gave only beside (docs/spec.md §4, §9).
 */
describe("who asked for a requeue or a bulk job", () => {
  let t: ApiUnderTest;
  /** A call by the operator olga; `as` another token. */
  const call = <T>(method: string, path: string, body?: unknown, as = "olga") =>
    callAs<T>(t.api.url, as, method, path, body);
  /** A run of its own session, cancelled where it waited: a requeue with includeCancelled takes it. */
  const cancelledRun = async (sessionId: string) => {
    const { run } = (await call<{ run: Run }>("POST", `/api/v1/sessions/${sessionId}/runs`, PARKED, "ci"))
      .body;
    await waitFor("the run parked", async () => {
      const { body } = await call<{ run: Run }>("GET", `/api/v1/runs/${run.id}`);
      return body.run.metadata.parked === true || undefined;
    });
    expect((await call("POST", `/api/v1/runs/${run.id}/cancel`, {})).status).toBe(202);
    return run.id;
  };
  /** What a run's record and its last requeue's event say of who asked. */
  const askedOf = async (runId: string) => {
    const { run } = (await call<{ run: Run }>("GET", `/api/v1/runs/${runId}`)).body;
    const events = (await call<{ items: RunEvent[] }>("GET", `/api/v1/runs/${runId}/events`)).body.items;
    const requeued = events.filter((e) => e.type === "run.requeued").at(-1);
    return {
      by: run.metadata.recovery?.lastManualRequeueBy,
      claimed: run.metadata.recovery?.lastManualRequeueClaimedBy,
      event: requeued?.data,
    };
  };
  const FORGED = { by: "olga", claimed: "ada-admin" };

  beforeAll(async () => {
    const tokens = [
      { name: "olga", role: "operator" },
      { name: "ci", role: "submitter" },
    ];
    t = await startApi("sqlite", {
      OAH_API_TOKENS: JSON.stringify(tokens.map((x) => ({ ...x, token: namedToken(x.name) }))),
    });
  });
  afterAll(() => t?.dispose());

  it("a requeue, one run or many: the caller, with the name it gave beside", async () => {
    const one = await cancelledRun("who-one");
    const many = [await cancelledRun("who-many-1"), await cancelledRun("who-many-2")];
    const asked = { requestedBy: "ada-admin", includeCancelled: true };
    expect((await call("POST", `/api/v1/runs/${one}/requeue`, asked)).status).toBe(202);
    expect((await call("POST", "/api/v1/runs/requeue", { runIds: many, ...asked })).status).toBe(200);
    for (const runId of [one, ...many]) {
      expect(await askedOf(runId)).toEqual({
        ...FORGED,
        event: {
          reason: "manual_operator_requeue",
          requestedBy: "olga",
          claimedBy: "ada-admin",
          from: "cancelled",
          fromStart: false,
        },
      });
    }
  });

  it("a bulk job (a dead-letter group's requeue is one): the job and each requeue name the caller", async () => {
    const runs = [await cancelledRun("who-bulk-1"), await cancelledRun("who-bulk-2")];
    const filter = { sessionId: "who-bulk-1" };
    const started = await call<{ job: BulkJob }>("POST", "/api/v1/bulk-actions", {
      action: "requeue",
      filter,
      requestedBy: "ada-admin",
      includeCancelled: true,
    });
    expect(started.body.job).toMatchObject({ requestedBy: "olga", claimedBy: "ada-admin", total: 1 });
    const ended = await waitFor("the job to end", async () => {
      const job = (await call<BulkJob>("GET", `/api/v1/bulk-actions/${started.body.job.id}`)).body;
      return job.status !== "running" && job;
    });
    expect(ended).toMatchObject({ status: "completed", requestedBy: "olga", claimedBy: "ada-admin" });
    expect((await call<{ items: BulkJob[] }>("GET", "/api/v1/bulk-actions")).body.items[0]).toMatchObject({
      requestedBy: "olga",
      claimedBy: "ada-admin",
    });
    expect((await askedOf(runs[0]!)).claimed).toBe("ada-admin");
    expect(await askedOf(runs[0]!)).toMatchObject(FORGED);
    // Without a name given, none is kept: nobody is claimed.
    const plain = await call<{ job: BulkJob }>("POST", "/api/v1/bulk-actions", {
      action: "requeue",
      filter: { sessionId: "who-bulk-2" },
      includeCancelled: true,
    });
    expect(plain.body.job).toMatchObject({ requestedBy: "olga", claimedBy: null });
    await waitFor("the requeue", async () => (await askedOf(runs[1]!)).by === "olga" || undefined);
    expect(await askedOf(runs[1]!)).toEqual({
      by: "olga",
      claimed: undefined,
      event: { reason: "manual_operator_requeue", requestedBy: "olga", from: "cancelled", fromStart: false },
    });
  });
});
