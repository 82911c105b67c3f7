import type { CancelResult, RequeueAccepted } from "@oah/contract";
import type { Notice } from "../notice";

/** A cancel of a queued run takes at once; one of an active run is passed on to where it runs. */
export const cancelNotice = ({ status }: Pick<CancelResult, "status">): Notice => ({
  kind: "ok",
  text:
    status === "cancelled"
      ? "Cancelled."
      : `Cancel requested; the run is being aborted where it runs (status ${status}).`,
});

export const requeueNotice = ({ previousStatus }: Pick<RequeueAccepted, "previousStatus">): Notice => ({
  kind: "ok",
  text: `Requeued (was ${previousStatus}).`,
});
