/**
 * The states of a worker host under the operators' and the controller's orders (docs/spec.md §8):
 * `active` claims; `cordoned` claims nothing new and lets its runs finish; `draining` is
 * cordoned with a deadline, after which the runs left are handed to recovery; `drained` has
 * nothing left in hand.
 */
export const HOST_STATES = ["active", "cordoned", "draining", "drained"] as const;
export type HostState = (typeof HOST_STATES)[number];

/** What a host is told: stop claiming, or stop and empty itself. No order means active. */
export const HOST_ORDERS = ["cordon", "drain"] as const;
export type HostOrder = (typeof HOST_ORDERS)[number];

/** The state an order asks for, as answered by the API when it is given. */
export const ORDERED_STATE: Record<HostOrder | "uncordon", HostState> = {
  cordon: "cordoned",
  drain: "draining",
  uncordon: "active",
};

/**
 * Where a host in `current` goes under `order` (null: none). A drain ends in `drained` only when
 * the host says its runs are gone (`emptied`); a drained host stays drained under the same order.
 */
export function nextHostState(current: HostState, order: HostOrder | null, emptied: boolean): HostState {
  if (order === null) return "active";
  if (order === "cordon") return "cordoned";
  if (current === "drained" || emptied) return "drained";
  return "draining";
}
