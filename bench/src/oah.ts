import type { Run } from "@oah/contract";
import { type SplitDeployment, startSplitDeployment } from "@oah/testing";

/** A split deployment for benchmarks: quiet logs, no sandbox until asked. */
export function startDeployment(env: Record<string, string> = {}): Promise<SplitDeployment> {
  return startSplitDeployment({ sandboxes: 0, env: { OAH_LOG_LEVEL: "error", ...env } });
}

export async function submitRun(d: SplitDeployment, sessionId: string, steps: unknown[] = []): Promise<Run> {
  const res = await d.client.post<{ run: Run }>(`/api/v1/sessions/${sessionId}/runs`, { input: { steps } });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run;
}

/** Runs `count` tasks with at most `concurrency` at once. */
export async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export async function unfinishedRuns(d: SplitDeployment): Promise<number> {
  const { rows } = await d.db.query<{ n: string }>(
    "SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'running', 'waiting_tool')",
  );
  return Number(rows[0]!.n);
}
