import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Run } from "@oah/contract";
import type { SplitDeployment } from "./deployment";
import { workspaceDir } from "./durable-runs";
import { type ApiClient, waitFor } from "./http";

/**
 * A run as the API gives it, for this package's own helpers: tests read runs through
 * @oah/client, which this package cannot depend on (its tests depend on this one).
 */
export async function getRun(client: ApiClient, runId: string): Promise<Run> {
  const res = await client.get<{ run: Run }>(`/api/v1/runs/${runId}`);
  if (res.status !== 200) throw new Error(`get failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run;
}

export const isTerminal = (run: Run): boolean =>
  ["completed", "failed", "cancelled", "timed_out"].includes(run.status);

/** Submits `runs` script runs of `ms` of sleep to each of `sessions` sessions (ids `<prefix>-<n>`). */
export async function submitBurst(
  d: SplitDeployment,
  prefix: string,
  sessions: number,
  runs: number,
  ms: number,
): Promise<void> {
  const body = { executor: "script", input: { steps: [{ type: "sleep", ms }] } };
  for (let r = 0; r < runs; r++) {
    await Promise.all(
      Array.from({ length: sessions }, async (_, s) => {
        const { status } = await d.client.post(`/api/v1/sessions/${prefix}-${s}/runs`, body);
        if (status !== 202) throw new Error(`submission answered ${status}`);
      }),
    );
  }
}

/** Submissions that go on until stopped. */
export interface ContinuousLoad {
  /** Ends the submissions after the burst under way; answers how many runs were submitted. */
  stop(): Promise<number>;
}

/**
 * One run of `ms` of sleep to each of `sessions` sessions (ids `<prefix>-<n>`), again every
 * `pauseMs` after the previous burst was accepted, until stopped.
 */
export function continuousLoad(
  d: SplitDeployment,
  prefix: string,
  { sessions, ms, pauseMs }: { sessions: number; ms: number; pauseMs: number },
): ContinuousLoad {
  let submitted = 0;
  let loading = true;
  const load = (async () => {
    while (loading) {
      await submitBurst(d, prefix, sessions, 1, ms);
      submitted += sessions;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      loading = false;
      await load;
      return submitted;
    },
  };
}

/** Waits until the deployment's database holds no unfinished run. */
export function waitForQuiet(d: SplitDeployment, timeoutMs = 120_000): Promise<true> {
  return waitFor(
    "every run to end",
    async () => {
      const { rows } = await d.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'running', 'waiting_tool')",
      );
      return Number(rows[0]!.n) === 0;
    },
    timeoutMs,
    250,
  );
}

/** Waits until a shell step has left `name` in its workspace (under the deployment's data directory). */
export function waitForWorkspaceFile(
  env: Record<string, string>,
  workspaceId: string,
  name: string,
): Promise<true> {
  const path = join(workspaceDir(env, workspaceId), name);
  return waitFor(`${workspaceId}/${name}`, async () => existsSync(path));
}

interface FinishedRun {
  session_id: string;
  seq: number;
  status: string;
  attempt: number;
  started_at: number;
  ended_at: number;
  terminal_events: number;
}

/**
 * Every run of the deployment completed once, and each session ran serially in submission
 * order. Node's assert, not Vitest's expect: Playwright and the bench load this package too.
 */
export async function expectAllCompletedInOrder(
  d: SplitDeployment,
  expected: number,
): Promise<FinishedRun[]> {
  const { rows } = await d.db.query<FinishedRun>(`
    SELECT r.session_id, r.seq, r.status, r.attempt, r.started_at, r.ended_at,
      (SELECT count(*) FROM run_events e WHERE e.run_id = r.id
        AND e.type IN ('run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'))::int AS terminal_events
    FROM runs r ORDER BY r.session_id, r.seq`);
  assert.equal(rows.length, expected, "the number of runs");
  assert.deepEqual(
    rows.filter((r) => r.status !== "completed" || r.terminal_events !== 1),
    [],
    "runs not completed exactly once",
  );
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1]!, rows[i]!];
    if (a.session_id === b.session_id)
      assert.ok(
        Number(b.started_at) >= Number(a.ended_at),
        `${b.session_id} #${b.seq} started before #${a.seq} ended`,
      );
  }
  return rows;
}
