import type { HostOrderAccepted } from "@oah/contract";
import type { HostState, ORDERED_STATE } from "@oah/core";
import type { Notice } from "../notice";

/** The orders an operator gives a host from the console (fleet.cordon, fleet.drain, fleet.uncordon). */
export type HostOrderAction = keyof typeof ORDERED_STATE;

/** An active host can be cordoned or drained; a host under an order can only be given it back. */
export const hostActions = (state: HostState): HostOrderAction[] =>
  state === "active" ? ["cordon", "drain"] : ["uncordon"];

export interface OrderCopy {
  label: string;
  /** What the order does to the host's runs, said in its confirmation. */
  effect: string;
  danger: boolean;
}

export const ORDER_COPY: Record<HostOrderAction, OrderCopy> = {
  cordon: {
    label: "Cordon",
    effect: "It claims no new run; the runs it holds finish where they are.",
    danger: false,
  },
  drain: {
    label: "Drain",
    effect:
      "It claims no new run and lets the runs it holds finish up to its drain timeout; what is left " +
      "then goes to recovery, and the host ends drained.",
    danger: true,
  },
  uncordon: {
    label: "Uncordon",
    effect: "It claims runs again; a drain under way stops.",
    danger: false,
  },
};

export const orderTitle = (action: HostOrderAction, hostId: string) =>
  `${ORDER_COPY[action].label} ${hostId}?`;

/** The order was taken: the host reads it at its next tick. */
export const orderedNotice = (action: HostOrderAction, result: HostOrderAccepted): Notice => ({
  kind: "ok",
  text: `${ORDER_COPY[action].label} ordered for ${result.hostId}: it turns ${result.state} at its next tick.`,
});
