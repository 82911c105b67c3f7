"use client";

import { useQuery } from "@tanstack/react-query";
import { runRefreshMs } from "@/lib/run-detail/refresh";
import { errorFacts, useTRPC } from "@/lib/trpc";

/** A run with its events and steps, refreshed while the run may still change. */
export function useRunQueries(runId: string) {
  const trpc = useTRPC();
  const run = useQuery(
    trpc.runs.get.queryOptions(
      { runId },
      {
        refetchInterval: (q) => runRefreshMs(q.state.data?.run.status),
        retry: (count, error) => errorFacts(error).errorCode !== "run_not_found" && count < 2,
      },
    ),
  );
  const refetchInterval = runRefreshMs(run.data?.run.status);
  const events = useQuery(
    trpc.runs.events.queryOptions({ runId, limit: 1000 }, { refetchInterval, enabled: run.isSuccess }),
  );
  const steps = useQuery(
    trpc.runs.steps.queryOptions({ runId }, { refetchInterval, enabled: run.isSuccess }),
  );
  return { run, events, steps };
}
