"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { failureNotice, type Notice } from "@/lib/notice";
import { cancelNotice, requeueNotice } from "@/lib/run-detail/notices";
import { errorFacts, useTRPC } from "@/lib/trpc";

/** The run page's cancel and requeue, each behind its confirmation where it has one, and what they told. */
export function useRunActions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [confirmingRunAgain, setConfirmingRunAgain] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
    ]);

  const cancel = useMutation(
    trpc.runs.cancel.mutationOptions({
      onSuccess: (result) => setNotice(cancelNotice(result)),
      onError: (error) => setNotice(failureNotice("Cancel failed", errorFacts(error))),
      onSettled: () => {
        setConfirmingCancel(false);
        return refresh();
      },
    }),
  );
  const requeue = useMutation(
    trpc.admin.requeue.mutationOptions({
      onSuccess: (result) => setNotice(requeueNotice(result)),
      onError: (error) => setNotice(failureNotice("Requeue refused", errorFacts(error))),
      onSettled: () => {
        setConfirmingRunAgain(false);
        return refresh();
      },
    }),
  );

  return {
    notice,
    cancel,
    requeue,
    confirmingCancel,
    setConfirmingCancel,
    confirmingRunAgain,
    setConfirmingRunAgain,
  };
}

export type RunActions = ReturnType<typeof useRunActions>;
