"use client";

import type { RequeueItem } from "@oah/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { RequeueFrom } from "@/lib/durable/requeue-from";
import { failureNotice, type Notice } from "@/lib/notice";
import { requeuedNotice } from "@/lib/runs-panel/requeue";
import { errorFacts, useTRPC } from "@/lib/trpc";
import type { RunSelection } from "./useSelection";

/** The panel's requeues, of one run or of the selection, and what they told. */
export function useRequeues(selection: RunSelection) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState<Notice>(null);
  const [results, setResults] = useState<RequeueItem[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [requeueFrom, setRequeueFrom] = useState<RequeueFrom>("checkpoint");
  const [pendingRow, setPendingRow] = useState<string | null>(null);

  const invalidate = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() }),
    ]);

  const requeueOne = useMutation(
    trpc.admin.requeue.mutationOptions({
      onMutate: ({ runId }) => setPendingRow(runId),
      onSuccess: (result) => {
        setNotice(requeuedNotice(result));
        selection.remove(result.runId);
      },
      onError: (error, { runId }) => setNotice(failureNotice(`${runId} was not requeued`, errorFacts(error))),
      onSettled: () => {
        setPendingRow(null);
        return invalidate();
      },
    }),
  );

  const requeueMany = useMutation(
    trpc.admin.requeueMany.mutationOptions({
      onSuccess: ({ items }) => {
        setResults(items);
        selection.clear();
        setNotice(null);
      },
      onError: (error) => setNotice(failureNotice("Bulk requeue failed", errorFacts(error))),
      onSettled: () => {
        setConfirming(false);
        setRequeueFrom("checkpoint");
        return invalidate();
      },
    }),
  );

  return {
    notice,
    results,
    dismissResults: () => setResults(null),
    confirming,
    setConfirming,
    requeueFrom,
    setRequeueFrom,
    pendingRow,
    requeueOne: (runId: string) => requeueOne.mutate({ runId }),
    requeueMany,
  };
}

export type Requeues = ReturnType<typeof useRequeues>;
