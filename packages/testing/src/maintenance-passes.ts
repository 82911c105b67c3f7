import { waitFor } from "./http";

/** How many passes of a maintenance task the process at `url` has ended done (its `/metrics`). */
export async function maintenancePasses(url: string, task: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sample = `oah_maintenance_runs_total{task="${task}",outcome="done"} `;
  const line = text.split("\n").find((l) => l.startsWith(sample));
  return line ? Number(line.slice(sample.length)) : 0;
}

/**
 * Waits for a pass of a maintenance task on the process at `url` that began after `since` (epoch
 * ms): the second to end once `since` has passed, since a host's passes follow one another.
 */
export async function maintenancePassAfter(url: string, task: string, since: number): Promise<void> {
  await waitFor(`the time ${new Date(since).toISOString()}`, async () => Date.now() > since, 60_000);
  const before = await maintenancePasses(url, task);
  await waitFor(
    `a pass of ${task} begun after ${new Date(since).toISOString()}`,
    async () => (await maintenancePasses(url, task)) >= before + 2,
    60_000,
  );
}
