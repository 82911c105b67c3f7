"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { RequeueFrom } from "@/lib/durable/requeue-from";
import { failureNotice, type Notice } from "@/lib/notice";
import { cancelNotice, requeueNotice } from "@/lib/run-detail/notices";
import { errorFacts, useTRPC } from "@/lib/trpc";

/**
 * The run page's cancel, requeue (from its last checkpoint or over from its first step) and fork
 * from a step, each behind its confirmation where it has one, and what they told. A fork opens
 * the new run's page.
 */
export function useRunActions() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [confirmingRequeue, setConfirmingRequeue] = useState(false);
  const [confirmingRunAgain, setConfirmingRunAgain] = useState(false);
  const [requeueFrom, setRequeueFrom] = useState<RequeueFrom>("checkpoint");
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
        setConfirmingRequeue(false);
        setConfirmingRunAgain(false);
        setRequeueFrom("checkpoint");
        return refresh();
      },
    }),
  );
  const fork = useMutation(
    trpc.runs.fork.mutationOptions({
      onSuccess: ({ run }) => router.push(`/runs/${run.id}`),
      onError: (error) => setNotice(failureNotice("Run again from here refused", errorFacts(error))),
      onSettled: () => refresh(),
    }),
  );

  return {
    notice,
    cancel,
    requeue,
    fork,
    confirmingCancel,
    setConfirmingCancel,
    confirmingRequeue,
    setConfirmingRequeue,
    requeueFrom,
    setRequeueFrom,
    confirmingRunAgain,
    setConfirmingRunAgain,
  };
}

export type RunActions = ReturnType<typeof useRunActions>;
