import type { CancelQueuedResult, JamRepair } from "@oah/contract";
import { plural } from "../format";
import type { Notice } from "../notice";

export const cancelQueuedNotice = ({ cancelled }: Pick<CancelQueuedResult, "cancelled">): Notice => ({
  kind: "ok",
  text:
    cancelled.length === 0
      ? "No queued run to cancel."
      : `Cancelled ${plural(cancelled.length, "queued run")}.`,
});

/** What a repair did: the sessions repaired, and those skipped (no longer jammed, or a holder that renews its lock). */
export const repairNotice = ({ repaired, skipped }: Pick<JamRepair, "repaired" | "skipped">): Notice => ({
  kind: "ok",
  text: `Repaired ${plural(repaired, "session")}, skipped ${skipped}.`,
});
