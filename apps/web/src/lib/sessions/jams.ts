import type { JamKind } from "@oah/core";

/** What each kind of jam is, and what its repair does (docs/spec.md §7). */
export const JAM_LABELS: Record<JamKind, { title: string; repair: string }> = {
  orphan_lock: {
    title: "Locks with no live holder",
    repair: "Breaks each lock whose holder has still not renewed it; a holder that renews keeps its lock.",
  },
  stale_ready: {
    title: "Ready entries with no runs",
    repair: "Takes the empty entries out of the ready set.",
  },
  lost_run: {
    title: "Queued runs the queue has lost",
    repair: "Enqueues them again at their place, as reconcile does.",
  },
  lost_wake: {
    title: "Sessions with queued runs, neither ready nor locked",
    repair: "Makes them ready, as reconcile does.",
  },
  stale_active: {
    title: "Active runs past stale",
    repair: "Recovers them by the recovery strategy, leaving alone those whose host still renews its lease.",
  },
};
