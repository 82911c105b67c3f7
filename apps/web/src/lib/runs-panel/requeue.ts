import type { RequeueAccepted, RunSummary } from "@oah/contract";
import type { Notice } from "../notice";
import { isRequeueEligible } from "../runs";

/** The most runs admin.requeueMany takes at once. */
export const REQUEUE_BATCH_MAX = 200;
/** The most runs the confirmation lists by id. */
const PREVIEW = 12;

export const requeueBatch = (runs: readonly RunSummary[]) =>
  runs.map((r) => r.id).slice(0, REQUEUE_BATCH_MAX);

export const requeueTitle = (count: number) => `Requeue ${count} ${count === 1 ? "run" : "runs"}?`;

/** What the confirmation expects of the API: the runs the console thinks it refuses are said beforehand. */
export function eligibilityText(runs: readonly RunSummary[]): string {
  const eligible = runs.filter(isRequeueEligible).length;
  return eligible === runs.length
    ? "All of them look eligible."
    : `${eligible} of them look eligible; the API refuses the others and says why.`;
}

/** The runs the confirmation lists, and how many more there are. */
export const requeuePreview = (runs: readonly RunSummary[]) => ({
  listed: runs.slice(0, PREVIEW),
  more: Math.max(0, runs.length - PREVIEW),
});

export const requeuedNotice = ({
  runId,
  previousStatus,
}: Pick<RequeueAccepted, "runId" | "previousStatus">): Notice => ({
  kind: "ok",
  text: `Requeued ${runId} (was ${previousStatus}).`,
});
