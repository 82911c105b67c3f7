"use client";

import type { StreamedEvent } from "@oah/contract";
import { isTerminal } from "@oah/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { FORKS_SHOWN } from "@/lib/durable/forks";
import {
  applyDelta,
  type EventsPage,
  isModelDelta,
  isStored,
  lastEventId,
  mergeEvents,
  settleWriting,
  type Writing,
} from "@/lib/live/run-stream";
import { refreshEvery } from "@/lib/live/state";
import { throttle } from "@/lib/live/throttle";
import { runRefreshMs } from "@/lib/run-detail/refresh";
import { errorFacts, useTRPC, useTRPCClient } from "@/lib/trpc";
import { useLiveStream } from "../live/useLiveStream";

const EVENTS_LIMIT = 1000;

/** How often a stored event may refetch the run and its steps: a burst of events costs two. */
const REFETCH_MS = 250;

/**
 * A run with its events, steps, checkpoints and the session's runs after it (among which its
 * forks). While the run may still change they follow its stream:
 * each stored event is appended and refetches the run and its steps, the model's text shows as
 * it is written; without the stream they refresh periodically.
 */
export function useRunQueries(runId: string) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [writing, setWriting] = useState<Writing | null>(null);

  const runOptions = trpc.runs.get.queryOptions({ runId });
  const eventsOptions = trpc.runs.events.queryOptions({ runId, limit: EVENTS_LIMIT });
  // Read from the cache, which the run's query below fills: this renders again whenever it changes.
  const status = queryClient.getQueryData(runOptions.queryKey)?.run.status;

  const refetch = useMemo(
    () =>
      throttle(() => {
        void queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ runId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.runs.steps.queryKey({ runId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.runs.checkpoints.queryKey({ runId }) });
      }, REFETCH_MS),
    [queryClient, trpc, runId],
  );
  useEffect(() => refetch.cancel, [refetch]);

  const live = useLiveStream(status !== undefined && !isTerminal(status) ? runId : null, (lifecycle) => {
    const page = queryClient.getQueryData(eventsOptions.queryKey) as EventsPage | undefined;
    return client.runs.onEvents.subscribe(
      { runId, after: lastEventId(page) },
      {
        ...lifecycle,
        onData: ({ data }) => {
          // The wire type loses the events' data shape (a record); the JSON is the API's StreamedEvent.
          const event = data as unknown as StreamedEvent;
          if (isModelDelta(event)) {
            setWriting((w) => applyDelta(w, event));
            return;
          }
          if (!isStored(event)) return;
          queryClient.setQueryData(
            eventsOptions.queryKey,
            (old) => mergeEvents(old as EventsPage | undefined, [event], EVENTS_LIMIT) as never,
          );
          setWriting((w) => settleWriting(w, event));
          refetch();
        },
      },
    );
  });
  const refetchInterval = refreshEvery(live, runRefreshMs(status));

  const run = useQuery({
    ...runOptions,
    refetchInterval,
    retry: (count, error) => errorFacts(error).errorCode !== "run_not_found" && count < 2,
  });
  const events = useQuery({
    ...eventsOptions,
    refetchInterval,
    enabled: run.isSuccess,
    // A refetch and the stream each bring events the other may not have yet: keep both.
    structuralSharing: (old, next) =>
      mergeEvents(old as EventsPage | undefined, (next as EventsPage).items, EVENTS_LIMIT),
  });
  const steps = useQuery({
    ...trpc.runs.steps.queryOptions({ runId }),
    refetchInterval,
    enabled: run.isSuccess,
  });
  const checkpoints = useQuery({
    ...trpc.runs.checkpoints.queryOptions({ runId }),
    refetchInterval,
    enabled: run.isSuccess,
  });
  // Its forks, by the Storage list's filter: the newest first.
  const forks = useQuery({
    ...trpc.admin.runs.queryOptions({ forkedFrom: runId, limit: FORKS_SHOWN }),
    refetchInterval,
    enabled: run.isSuccess,
  });
  return { run, events, steps, checkpoints, forks, live, writing };
}
