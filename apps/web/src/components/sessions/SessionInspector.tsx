"use client";

import type { SessionInspection } from "@oah/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useMay } from "@/lib/actor";
import { executingRun, IF_BUSY_TEXT, interruptNotice } from "@/lib/busy/policy";
import { REFRESH_MS } from "@/lib/constants";
import { ago, duration } from "@/lib/format";
import { failureNotice, type Notice, noticeClass } from "@/lib/notice";
import { cancelQueuedNotice } from "@/lib/sessions/notices";
import { sessionHref } from "@/lib/storage-links";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { ParkedBadge, StatusBadge } from "../Badges";
import { ConfirmDialog } from "../ConfirmDialog";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";
import { RunId } from "../RunId";
import { Time } from "../Time";

function LockFacts({ lock }: { lock: SessionInspection["lock"] }) {
  if (!lock) return <p className="muted">No lock: no worker holds the session.</p>;
  return (
    <dl className="facts" aria-label="Session lock">
      <dt>Holder</dt>
      <dd data-lock-holder={lock.holder ?? ""}>
        {lock.holder ? (
          <RunId id={lock.holder} />
        ) : (
          <span className="muted">no run executes under its token</span>
        )}
      </dd>
      <dt>Host</dt>
      <dd className="mono" data-lock-host={lock.hostId ?? ""}>
        {lock.hostId ?? "—"}
      </dd>
      <dt>Worker</dt>
      <dd className="mono">{lock.workerId ?? "—"}</dd>
      <dt>Claimed</dt>
      <dd>{lock.claimedAt ? ago(lock.claimedAt) : "—"}</dd>
      <dt>Time left</dt>
      <dd>{duration(lock.ttlMs)}</dd>
      <dt>Last renewed</dt>
      <dd>{duration(lock.silentMs)} ago</dd>
    </dl>
  );
}

/** The cancel of the session's queued runs: all of them, or from a position on. */
function CancelQueued({ sessionId, onDone }: { sessionId: string; onDone: (notice: Notice) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [from, setFrom] = useState("");
  const [confirming, setConfirming] = useState(false);
  const fromPosition = from.trim() === "" ? undefined : Number(from);
  const cancel = useMutation(
    trpc.admin.cancelQueued.mutationOptions({
      onSuccess: (result) => onDone(cancelQueuedNotice(result)),
      onError: (error) => onDone(failureNotice("Cancel refused", errorFacts(error))),
      onSettled: () => {
        setConfirming(false);
        return queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
    }),
  );
  return (
    <form
      className="filter-bar"
      onSubmit={(event) => {
        event.preventDefault();
        setConfirming(true);
      }}
    >
      <label>
        From position{" "}
        <input
          className="mono"
          inputMode="numeric"
          pattern="[1-9][0-9]*"
          placeholder="all"
          size={6}
          value={from}
          onChange={(event) => setFrom(event.target.value)}
        />
      </label>
      <button type="submit" className="btn btn-danger">
        Cancel queued runs
      </button>
      <ConfirmDialog
        open={confirming}
        title="Cancel the session's queued runs?"
        confirmLabel="Cancel queued runs"
        dismissLabel="Keep them"
        danger
        busy={cancel.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => cancel.mutate({ sessionId, fromPosition })}
      >
        <p>
          Every queued run of <span className="mono">{sessionId}</span>
          {fromPosition === undefined ? "" : ` from position ${fromPosition} on`} ends <code>cancelled</code>.
          The run executing now goes on.
        </p>
      </ConfirmDialog>
    </form>
  );
}

/**
 * An operator's interrupt of the run executing (docs/api.md): it stops at its next step boundary,
 * as a later submission's interrupt would stop it.
 */
function InterruptRunning({ runId, onDone }: { runId: string; onDone: (notice: Notice) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const interrupt = useMutation(
    trpc.runs.interrupt.mutationOptions({
      onSuccess: (result) => onDone(interruptNotice(result)),
      onError: (error) => onDone(failureNotice("Interrupt refused", errorFacts(error))),
      onSettled: () => {
        setConfirming(false);
        return queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
    }),
  );
  return (
    <div className="filter-bar">
      <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)}>
        Interrupt the running run
      </button>
      <ConfirmDialog
        open={confirming}
        title="Interrupt the running run?"
        confirmLabel="Interrupt it"
        dismissLabel="Let it run"
        danger
        busy={interrupt.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => interrupt.mutate({ runId })}
      >
        <p>
          <span className="mono">{runId}</span> finishes the step it is in, then ends <code>cancelled</code>{" "}
          with <code>interrupted</code>, &ldquo;interrupted by an operator&rdquo;. The session then goes on
          with its next run.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** One session as the queue and the store hold it (docs/spec.md §9): its runs, its lock, its place in line. */
export function SessionInspector({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const mayOperate = useMay("operate");
  const mayCancel = useMay("cancel");
  const [notice, setNotice] = useState<Notice>(null);
  const inspection = useQuery(
    trpc.admin.inspectSession.queryOptions({ sessionId }, { refetchInterval: REFRESH_MS }),
  );
  const s = inspection.data;
  const executing = s ? executingRun(s.runs) : null;
  return (
    <section className="panel" aria-labelledby="session-title">
      <p className="crumbs">
        <Link href={sessionHref(sessionId)}>← Runs of this session</Link>
      </p>
      <div className="panel-head">
        <h1 id="session-title">
          Session <span className="mono">{sessionId}</span>
        </h1>
      </div>
      {s && inspection.error ? (
        <RefreshErrorBanner errors={[inspection.error]} updatedAt={inspection.dataUpdatedAt || null} />
      ) : null}
      {notice ? (
        <p className={noticeClass(notice)} role="status">
          {notice.text}
        </p>
      ) : null}
      {!s && inspection.error ? (
        <ErrorState what="the session" error={inspection.error} onRetry={() => inspection.refetch()} />
      ) : !s ? (
        <div className="state" role="status">
          Loading the session…
        </div>
      ) : (
        <>
          <h2>Lock</h2>
          <LockFacts lock={s.lock} />
          <h2>Ready set</h2>
          {s.ready ? (
            <p data-ready-lane={s.ready.lane}>
              Waiting in the <strong>{s.ready.lane}</strong> lane of workspace{" "}
              <span className="mono">{s.ready.workspaceId}</span> since <Time value={s.ready.since} />.
            </p>
          ) : (
            <p className="muted">Not waiting in line{s.lock ? ": it is locked" : ""}.</p>
          )}
          <h2>Runs</h2>
          {mayOperate ? <CancelQueued sessionId={sessionId} onDone={setNotice} /> : null}
          {mayCancel && executing ? <InterruptRunning runId={executing.id} onDone={setNotice} /> : null}
          <div className="table-wrap">
            <table className="dense-table" aria-label="Runs of the session">
              <thead>
                <tr>
                  <th>Position</th>
                  <th>Run</th>
                  <th>Status</th>
                  <th>In queue</th>
                  <th>If busy</th>
                  <th>Worker</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {s.runs.map((run) => (
                  <tr key={run.id} data-run-id={run.id} data-status={run.status}>
                    <td className="mono">
                      #{run.position}
                      {run.id === s.head ? <span className="badge status-running"> head</span> : null}
                    </td>
                    <td>
                      <RunId id={run.id} />
                    </td>
                    <td>
                      <StatusBadge status={run.status} /> <ParkedBadge parked={run.parked} />
                    </td>
                    <td>{run.inQueue ? "yes" : <span className="muted">no</span>}</td>
                    <td data-if-busy={run.ifBusy} title={IF_BUSY_TEXT[run.ifBusy]}>
                      {run.ifBusy === "enqueue" ? <span className="muted">enqueue</span> : run.ifBusy}
                    </td>
                    <td className="mono">{run.workerId ?? <span className="muted">—</span>}</td>
                    <td className="time">
                      <Time value={run.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
