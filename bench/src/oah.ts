import type { SplitDeployment } from "@oah/testing";

/** Runs of the deployment's store not yet finished (the soak script's check). */
export async function unfinishedRuns(d: SplitDeployment): Promise<number> {
  const { rows } = await d.db.query<{ n: string }>(
    "SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'running', 'waiting_tool')",
  );
  return Number(rows[0]!.n);
}
