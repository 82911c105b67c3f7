"use client";

import { useQuery } from "@tanstack/react-query";
import { commandlessHosts } from "@/lib/pool/commands";
import { useTRPC } from "@/lib/trpc";

const REFRESH_MS = 15_000;

/**
 * On every page while it lasts: hosts that cannot run commands of runs, why, and what to do.
 * Runs with shell or hook steps, or the agent's shell tool, are refused meanwhile.
 */
export function CommandsBanner() {
  const trpc = useTRPC();
  const pool = useQuery(
    trpc.admin.pool.queryOptions(undefined, { refetchInterval: REFRESH_MS, retry: false }),
  );
  const hosts = commandlessHosts(pool.data?.hosts ?? []);
  if (hosts.length === 0) return null;
  return (
    <div className="banner banner-error banner-page" role="alert" data-testid="commands-banner">
      <strong>Commands of runs are unavailable</strong>: shell steps, hook steps and the agent's shell tool
      are refused (<code>commands_unavailable</code>); runs without commands work.
      <ul>
        {hosts.map((h) => (
          <li key={h.hostId}>
            <code>{h.hostId}</code>: {h.reason}
          </li>
        ))}
      </ul>
      Check a host with <code>npm run doctor</code>.
    </div>
  );
}
