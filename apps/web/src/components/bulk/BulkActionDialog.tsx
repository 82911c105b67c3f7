"use client";

import type { BulkDryRun, StorageRunFilters } from "@oah/contract";
import type { BulkAction } from "@oah/core";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { ACTION_VERB, actingCount } from "@/lib/bulk/report";
import { RESUME_EACH, type RequeueFrom, requeueFromInput } from "@/lib/durable/requeue-from";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { ConfirmDialog } from "../ConfirmDialog";
import { RequeueFromChoice } from "../RequeueFromChoice";
import { OutcomeTable } from "./OutcomeTable";

/**
 * A bulk action by filter: opened, it asks the API for a dry run and shows what the action would
 * do run by run; confirmed, it starts the job and goes to its page, where its progress shows. A
 * requeue's runs go on from their checkpoints, or start over as the operator chooses.
 */
export function BulkActionDialog({
  action,
  filter,
  open,
  onClose,
}: {
  action: BulkAction;
  filter: StorageRunFilters;
  open: boolean;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const dryRun = useMutation(trpc.admin.bulkAction.mutationOptions());
  const start = useMutation(
    trpc.admin.bulkAction.mutationOptions({
      onSuccess: (result) => {
        if ("job" in result) router.push(`/bulk-actions/${result.job.id}`);
      },
    }),
  );
  const [requeueFrom, setRequeueFrom] = useState<RequeueFrom>("checkpoint");
  const { mutate: ask, reset } = dryRun;
  // The filter by its value: a parent's new object of the same filter asks no new dry run.
  const asked = JSON.stringify({ action, filter });
  useEffect(() => {
    if (open) ask({ ...JSON.parse(asked), dryRun: true });
    else {
      reset();
      setRequeueFrom("checkpoint");
    }
  }, [open, ask, reset, asked]);

  const report = dryRun.data && "matched" in dryRun.data ? (dryRun.data as BulkDryRun) : null;
  const acting = report ? actingCount(action, report) : 0;
  const { verb } = ACTION_VERB[action];
  const failure = dryRun.error ?? start.error;
  return (
    <ConfirmDialog
      open={open}
      title={report ? `${verb} all ${report.matched} matching` : `${verb} all matching`}
      confirmLabel={`${verb} ${acting} run${acting === 1 ? "" : "s"}`}
      danger={action === "cancel"}
      busy={start.isPending}
      confirmDisabled={!report || acting === 0}
      onCancel={onClose}
      onConfirm={() =>
        start.mutate({ action, filter, ...(action === "requeue" ? requeueFromInput(requeueFrom) : {}) })
      }
    >
      {dryRun.isPending ? <p role="status">Counting what the filter matches…</p> : null}
      {failure ? (
        <p className="notice-error" role="alert">
          {errorFacts(failure).message}
        </p>
      ) : null}
      {report ? (
        <>
          <p data-testid="dry-run-summary">
            Dry run: {report.matched} runs match; {acting} would be{" "}
            {action === "requeue" ? "requeued" : "cancelled"}, the rest left as they are.
            {acting > 0
              ? " The job acts on the runs matched when it starts, in chunks at a bounded rate; it can be aborted."
              : ""}
          </p>
          <OutcomeTable action={action} outcomes={report.outcomes} examples={report.examples} />
          {action === "requeue" && acting > 0 ? (
            <RequeueFromChoice
              resumeLabel={RESUME_EACH}
              value={requeueFrom}
              onChange={setRequeueFrom}
              disabled={start.isPending}
            />
          ) : null}
        </>
      ) : null}
    </ConfirmDialog>
  );
}
