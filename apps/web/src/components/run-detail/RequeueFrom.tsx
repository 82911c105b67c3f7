import type { RunCheckpoint } from "@oah/contract";
import { resumeChoice } from "@/lib/durable/requeue-from";
import { RequeueFromChoice } from "../RequeueFromChoice";
import type { RunActions } from "./useRunActions";

/** Where a requeue of this run starts: the choice when it has a checkpoint, else that it starts over. */
export function RequeueFrom({
  checkpoints,
  actions,
}: {
  checkpoints: readonly RunCheckpoint[] | undefined;
  actions: RunActions;
}) {
  if (!checkpoints) return <p className="muted small">Reading its checkpoints…</p>;
  const resume = resumeChoice(checkpoints);
  if (!resume) return <p>It has no checkpoint: it starts from its first step.</p>;
  return (
    <RequeueFromChoice
      resumeLabel={resume}
      value={actions.requeueFrom}
      onChange={actions.setRequeueFrom}
      disabled={actions.requeue.isPending}
    />
  );
}
