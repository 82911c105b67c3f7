"use client";

import type { Run, RunCheckpoint, RunEvent, RunSummary as RunListItem, RunStep } from "@oah/contract";
import { isTerminal } from "@oah/core";
import Link from "next/link";
import { useMay } from "@/lib/actor";
import { noticeClass } from "@/lib/notice";
import { inspectorHref } from "@/lib/sessions/links";
import { steeringOnSteps } from "@/lib/steering/messages";
import { sessionHref } from "@/lib/storage-links";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";
import { JsonBlock } from "../JsonBlock";
import { CancelDialog } from "./CancelDialog";
import { RecoveryFacts } from "./RecoveryFacts";
import { RequeueDialog } from "./RequeueDialog";
import { RunAgainDialog } from "./RunAgainDialog";
import { RunEvents } from "./RunEvents";
import { RunHeader } from "./RunHeader";
import { RunResumes } from "./RunResumes";
import { RunSteps } from "./RunSteps";
import { RunSummary } from "./RunSummary";
import { useRunActions } from "./useRunActions";
import { useRunQueries } from "./useRunQueries";

export function RunDetail({ runId }: { runId: string }) {
  const { run, events, steps, checkpoints, forks, live, writing } = useRunQueries(runId);
  const actions = useRunActions();
  const mayFork = useMay("fork");

  if (!run.data) {
    return (
      <div className="run-detail">
        <p className="crumbs">
          <Link href="/storage">← Runs</Link>
        </p>
        {run.isPending ? (
          <div className="state" role="status">
            Loading run <span className="mono">{runId}</span>…
          </div>
        ) : (
          <ErrorState what={`run ${runId}`} error={run.error} onRetry={() => run.refetch()} />
        )}
      </div>
    );
  }

  // The wire types tRPC infers lose RunMetadata's named members (it has an index signature); the
  // JSON is the API's Run, events and steps exactly.
  const r = run.data.run as unknown as Run;
  const eventsPage = events.data as unknown as { items: RunEvent[]; nextCursor: number | null } | undefined;
  const marks = checkpoints.data?.items as RunCheckpoint[] | undefined;
  const forksOfRun = forks.data?.items as unknown as RunListItem[] | undefined;
  const stepItems = steps.data?.items as unknown as RunStep[] | undefined;
  const { notice, fork } = actions;

  return (
    <div className="run-detail">
      <p className="crumbs">
        <Link href="/storage">← Runs</Link> ·{" "}
        <Link href={sessionHref(r.sessionId)}>session {r.sessionId}</Link> ·{" "}
        <Link href={inspectorHref(r.sessionId)}>inspect the session</Link>
      </p>
      <RefreshErrorBanner
        errors={[run.error, events.error, steps.error, checkpoints.error, forks.error]}
        updatedAt={run.dataUpdatedAt || null}
      />
      <RunHeader run={r} actions={actions} live={live} />
      {notice ? (
        <p className={noticeClass(notice)} role="status">
          {notice.text}
        </p>
      ) : null}

      <div className="detail-grid detail-main">
        <RunSummary
          run={r}
          events={eventsPage?.items}
          steps={steps.data?.items as unknown as RunStep[] | undefined}
          forks={forksOfRun}
          moreForks={forks.data?.nextCursor != null}
        />
        <section className="panel" aria-labelledby="recovery-title">
          <h2 id="recovery-title">Recovery</h2>
          <RecoveryFacts run={r} />
        </section>
      </div>

      <div className="detail-grid">
        <RunEvents runId={runId} page={eventsPage} error={events.error} onRetry={() => events.refetch()} />
        <RunSteps
          steps={stepItems}
          checkpoints={marks}
          steering={steeringOnSteps(
            eventsPage?.items ?? [],
            (stepItems ?? []).map((s) => s.id),
            isTerminal(r.status),
          )}
          resumes={<RunResumes events={eventsPage?.items} />}
          fork={
            mayFork
              ? {
                  pending: fork.isPending ? (fork.variables?.fromStep ?? null) : null,
                  onFork: (fromStep) => fork.mutate({ runId, fromStep }),
                }
              : null
          }
          writing={writing}
          error={steps.error}
          onRetry={() => steps.refetch()}
        />
      </div>

      <div className="detail-grid">
        <section className="panel" aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <JsonBlock value={r.input} label="Input" />
        </section>
        <section className="panel" aria-labelledby="output-title">
          <h2 id="output-title">Output</h2>
          <JsonBlock value={r.output} label="Output" />
        </section>
      </div>

      <CancelDialog run={r} actions={actions} />
      <RequeueDialog run={r} checkpoints={marks} actions={actions} />
      <RunAgainDialog run={r} checkpoints={marks} actions={actions} />
    </div>
  );
}
