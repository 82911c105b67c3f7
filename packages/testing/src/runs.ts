import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Run } from "@oah/contract";
import type { SplitDeployment } from "./deployment";
import { type ApiClient, waitFor } from "./http";

export type Step = Record<string, unknown>;

/** Submits a `script` run through the HTTP API; throws unless it is accepted (202). */
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

export const isTerminal = (run: Run): boolean =>
  ["completed", "failed", "cancelled", "timed_out"].includes(run.status);

export function waitForRun(
  client: ApiClient,
  runId: string,
  accept: (run: Run) => boolean,
  timeoutMs = 30_000,
): Promise<Run> {
  return waitFor(
    `run ${runId}`,
    async () => {
      const run = await getRun(client, runId);
      return accept(run) ? run : undefined;
    },
    timeoutMs,
  );
}

export async function sessionRuns(client: ApiClient, sessionId: string): Promise<Run[]> {
  const res = await client.get<{ items: Run[] }>(`/api/v1/sessions/${encodeURIComponent(sessionId)}/runs`);
  return res.body.items;
}

export async function eventTypes(client: ApiClient, runId: string): Promise<string[]> {
  const res = await client.get<{ items: { type: string }[] }>(`/api/v1/runs/${runId}/events`);
  return res.body.items.map((e) => e.type);
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
  const path = join(env.OAH_DATA_DIR!, ".openharness", "workspaces", workspaceId, name);
  return waitFor(`${workspaceId}/${name}`, async () => existsSync(path));
}
