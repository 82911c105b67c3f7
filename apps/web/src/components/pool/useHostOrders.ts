"use client";

import type { HostState } from "@oah/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { failureNotice, type Notice } from "@/lib/notice";
import { type HostOrderAction, ORDER_COPY, orderedNotice } from "@/lib/pool/host-orders";
import { errorFacts, useTRPC, useTRPCClient } from "@/lib/trpc";

/** An order the operator asked for and has yet to confirm; `state` is the host's as the console saw it. */
export interface HostOrderAsk {
  hostId: string;
  action: HostOrderAction;
  state: HostState;
}

/** The pool section's orders to hosts (cordon, drain, uncordon), each behind its confirmation, and what they told. */
export function useHostOrders() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [asked, setAsked] = useState<HostOrderAsk | null>(null);
  const [notice, setNotice] = useState<Notice>(null);

  const order = useMutation({
    mutationFn: ({ hostId, action }: HostOrderAsk) => client.fleet[action].mutate({ hostId }),
    onSuccess: (result, { action }) => setNotice(orderedNotice(action, result)),
    onError: (error, { hostId, action }) =>
      setNotice(failureNotice(`${ORDER_COPY[action].label} of ${hostId} failed`, errorFacts(error))),
    onSettled: () => {
      setAsked(null);
      return queryClient.invalidateQueries({ queryKey: trpc.admin.pool.queryKey() });
    },
  });

  return {
    asked,
    ask: setAsked,
    dismiss: () => setAsked(null),
    confirm: () => {
      if (asked) order.mutate(asked);
    },
    busy: order.isPending,
    notice,
  };
}

export type HostOrders = ReturnType<typeof useHostOrders>;
