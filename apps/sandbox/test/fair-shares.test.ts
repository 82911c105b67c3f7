// @module-tag system

import { type SplitDeployment, startSplitDeployment } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf, inWaves, waitForCompleted } from "./support";

/** Submits `sessions` × `runs` runs of a workspace, round-robin over its sessions. */
async function submitWorkspace(
  d: SplitDeployment,
  workspaceId: string,
  sessions: number,
  runs: number,
  steps: { type: "sleep"; ms: number }[] = [],
) {
  const jobs = Array.from({ length: sessions * runs }, (_, i) => `${workspaceId}-${i % sessions}`);
  const c = clientOf(d);
  await inWaves(jobs, 64, (sessionId) => c.submit(sessionId, { workspaceId, input: { steps } }));
}

/** The workspaces of the runs in the order they started (the start's event id orders runs started together). */
async function startOrder(d: SplitDeployment): Promise<string[]> {
  const { rows } = await d.db.query<{ workspace_id: string }>(
    `SELECT r.workspace_id FROM runs r JOIN run_events e ON e.run_id = r.id AND e.type = 'run.started'
     ORDER BY r.started_at, e.id`,
  );
  return rows.map((r) => r.workspace_id);
}

/** B's share of the starts while both workspaces still had runs to start. */
function shareWhileBothWork(order: string[], workspace: string): number {
  const lastOf = (w: string) => order.lastIndexOf(w);
  const window = order.slice(0, Math.min(...[...new Set(order)].map(lastOf)) + 1);
  return window.filter((w) => w === workspace).length / window.length;
}

/** The most runs of the workspace executing at once, from their start and end times. */
async function mostAtOnce(d: SplitDeployment, workspaceId: string): Promise<number> {
  const { rows } = await d.db.query<{ started_at: string; ended_at: string }>(
    "SELECT started_at, ended_at FROM runs WHERE workspace_id = $1",
    [workspaceId],
  );
  const edges = rows.flatMap((r) => [
    [Number(r.started_at), 1],
    [Number(r.ended_at), -1],
  ]);
  // An end and a start at the same millisecond: the end first (the slot was free).
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) {
    now += step!;
    most = Math.max(most, now);
  }
  return most;
}

describe("fair shares between workspaces", () => {
  let d: SplitDeployment | undefined;
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
  });

  it.each([
    ["equal weights", undefined, 0.5],
    ["weights 3:1", JSON.stringify({ big: 3, small: 1 }), 0.25],
  ])(
    "%s: a workspace of 20 sessions takes its share of 8 slots beside one of 2,000",
    async (_name, weights, expected) => {
      d = await startSplitDeployment({
        sandboxes: 0,
        env: weights ? { OAH_WORKSPACE_WEIGHTS: weights } : {},
        sandboxEnv: { OAH_WORKERS_MIN: "8", OAH_WORKERS_MAX: "8" },
      });
      // Everything is queued before the first slot exists: the order is the queue's alone.
      await submitWorkspace(d, "big", 2_000, 1);
      await submitWorkspace(d, "small", 20, 30);
      await d.addSandbox();
      await waitForCompleted(d, 2_600);
      const share = shareWhileBothWork(await startOrder(d), "small");
      // Within 10 % of its weight's share.
      expect(Math.abs(share - expected)).toBeLessThanOrEqual(expected * 0.1);
    },
  );

  it("a cap of 2 on a workspace holds across two sandboxes, while the other uses the slots it leaves", async () => {
    d = await startSplitDeployment({
      sandboxes: 0,
      env: { OAH_WORKSPACE_MAX_CONCURRENT: JSON.stringify({ capped: 2 }) },
      sandboxEnv: { OAH_WORKERS_MIN: "4", OAH_WORKERS_MAX: "4" },
    });
    const sleep = [{ type: "sleep" as const, ms: 150 }];
    await submitWorkspace(d, "capped", 20, 3, sleep);
    await submitWorkspace(d, "free", 20, 3, sleep);
    await d.addSandbox();
    await d.addSandbox();
    await waitForCompleted(d, 120);
    expect(await mostAtOnce(d, "capped")).toBe(2);
    expect(await mostAtOnce(d, "free")).toBeGreaterThan(2);
    const { rows } = await d.db.query<{ hosts: number }>(
      "SELECT count(DISTINCT split_part(worker_id, '/', 1))::int AS hosts FROM runs WHERE workspace_id = 'capped'",
    );
    expect(rows[0]!.hosts).toBe(2);
  });
});
