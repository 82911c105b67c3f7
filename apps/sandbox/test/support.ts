import { createClient, type OahClient } from "@oah/client";
import { type SplitDeployment, waitFor } from "@oah/testing";

/** The deployment's API through @oah/client (its `client` is the raw one, for answers read status by status). */
export const clientOf = (d: SplitDeployment): OahClient =>
  createClient({ baseUrl: d.api.url, token: d.env.OAH_API_TOKEN });

/** Short lock, heartbeat, staleness and scan periods, so that recovery happens within seconds. */
export const FAST_RECOVERY = {
  OAH_SESSION_LOCK_TTL_MS: "1500",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
  OAH_STALE_RUN_AFTER_MS: "2000",
  OAH_RECOVERY_SCAN_INTERVAL_MS: "300",
};

/** Waits until at least `n` runs (of `sessionId`, when given) have completed. */
export function waitForCompleted(d: SplitDeployment, n: number, sessionId?: string): Promise<true> {
  return waitFor(
    `${n} runs${sessionId ? ` of ${sessionId}` : ""} to complete`,
    async () => {
      const { rows } = await d.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE status = 'completed' AND ($1::text IS NULL OR session_id = $1)",
        [sessionId ?? null],
      );
      return rows[0]!.n >= n || undefined;
    },
    30_000,
    20,
  );
}

/** Calls `each` on every item, `width` at a time; resolves with the results in order. */
export async function inWaves<T, R>(
  items: readonly T[],
  width: number,
  each: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width)
    results.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => each(item, i + j)))));
  return results;
}
