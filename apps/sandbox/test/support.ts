import type { Run } from "@oah/contract";
import { type ApiClient, type SplitDeployment, waitFor } from "@oah/testing";

export type Step = Record<string, unknown>;

export async function submit(
  client: ApiClient,
  sessionId: string,
  steps: Step[],
  extra: Record<string, unknown> = {},
): Promise<Run> {
  const res = await client.post<{ run: Run }>(`/api/v1/sessions/${encodeURIComponent(sessionId)}/runs`, {
    input: { steps },
    ...extra,
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run;
}

export async function getRun(client: ApiClient, runId: string): Promise<Run> {
  const res = await client.get<{ run: Run }>(`/api/v1/runs/${runId}`);
  if (res.status !== 200) throw new Error(`get failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run;
}

export const isTerminal = (run: Run) =>
  ["completed", "failed", "cancelled", "timed_out"].includes(run.status);

export function waitForRun(
  client: ApiClient,
  runId: string,
  accept: (run: Run) => boolean,
  timeoutMs = 30_000,
) {
  return waitFor(
    `run ${runId}`,
    async () => {
      const run = await getRun(client, runId);
      return accept(run) ? run : undefined;
    },
    timeoutMs,
  );
}

export async function eventTypes(client: ApiClient, runId: string): Promise<string[]> {
  const res = await client.get<{ items: { type: string }[] }>(`/api/v1/runs/${runId}/events`);
  return res.body.items.map((e) => e.type);
}

/** Waits until the database holds no unfinished run. */
export function waitForQuiet(d: SplitDeployment, timeoutMs = 120_000) {
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
