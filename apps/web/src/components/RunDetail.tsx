"use client";

import type { Run, RunEvent, RunStep } from "@oah/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { REFRESH_MS } from "@/lib/constants";
import { ago, between, duration, json } from "@/lib/format";
import { isCancellable, requeueKind } from "@/lib/runs";
import { EMPTY_FILTERS, filtersToQuery } from "@/lib/storage-filters/view";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { Code, RecoveryBadge, StatusBadge } from "./Badges";
import { ConfirmDialog } from "./ConfirmDialog";
import { ErrorState, RefreshErrorBanner } from "./ErrorBanner";
import { JsonBlock } from "./JsonBlock";
import { RunId } from "./RunId";
import { Time } from "./Time";

type Notice = { kind: "ok" | "error"; text: string } | null;

function Timeline({ run }: { run: Run }) {
  const entries: { label: string; at: string | null; note?: string }[] = [
    { label: "created", at: run.createdAt },
    {
      label: "started",
      at: run.startedAt,
      note: run.startedAt ? `waited ${duration(between(run.createdAt, run.startedAt))}` : undefined,
    },
    {
      label: "heartbeat",
      at: run.heartbeatAt,
      note: run.heartbeatAt && !run.endedAt ? ago(run.heartbeatAt) : undefined,
    },
    ...(run.cancelRequestedAt ? [{ label: "cancel requested", at: run.cancelRequestedAt }] : []),
    {
      label: "ended",
      at: run.endedAt,
      note: run.endedAt && run.startedAt ? `ran ${duration(between(run.startedAt, run.endedAt))}` : undefined,
    },
  ];
  return (
    <ol className="run-timeline" aria-label="Timeline">
      {entries.map((e) => (
        <li key={e.label} className={e.at ? "is-done" : undefined}>
          <span className="run-timeline-label">{e.label}</span>
          <Time value={e.at} />
          {e.note ? <span className="run-timeline-note">{e.note}</span> : null}
        </li>
      ))}
    </ol>
  );
}

function RecoverySection({ run }: { run: Run }) {
  const r = run.metadata?.recovery;
  if (!r && run.recoveryState === null && run.metadata?.recoveryAttempts === undefined) {
    return <p className="muted small">Recovery has never acted on this run.</p>;
  }
  return (
    <dl className="facts facts-grid facts-wide">
      <div>
        <dt>state</dt>
        <dd>
          <RecoveryBadge state={run.recoveryState} />
        </dd>
      </div>
      <div>
        <dt>strategy</dt>
        <dd className="mono">{r?.strategy ?? "—"}</dd>
      </div>
      <div>
        <dt>attempts / max</dt>
        <dd>{r ? `${r.attempts} / ${r.maxAttempts}` : (run.metadata?.recoveryAttempts ?? "—")}</dd>
      </div>
      <div>
        <dt>reason</dt>
        <dd className="mono">{r?.reason ?? "—"}</dd>
      </div>
      <div>
        <dt>last outcome</dt>
        <dd className="mono">{r ? `${r.lastOutcome.from} → ${r.lastOutcome.to}` : "—"}</dd>
      </div>
      <div>
        <dt>last recovered</dt>
        <dd>
          <Time value={r?.lastRecoveredAt} />
          {r?.lastRecoveredBy ? <span className="subtle mono"> by {r.lastRecoveredBy}</span> : null}
        </dd>
      </div>
      <div>
        <dt>manual requeues</dt>
        <dd>
          {r?.manualRequeueCount ?? 0}
          {r?.lastManualRequeueAt ? (
            <span className="subtle">
              {" "}
              · last <Time value={r.lastManualRequeueAt} /> by{" "}
              <span className="mono">{r.lastManualRequeueBy}</span>
            </span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>dead letter</dt>
        <dd>
          {r?.deadLetter ? (
            <>
              <span className="badge recovery-quarantined">{r.deadLetter.status}</span>{" "}
              <span className="mono">{r.deadLetter.reason}</span> · <Time value={r.deadLetter.at} />
            </>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
      </div>
    </dl>
  );
}

function Events({ events }: { events: RunEvent[] }) {
  if (events.length === 0) return <p className="muted small">No events.</p>;
  return (
    <table className="dense-table" aria-label="Events">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">time</th>
          <th scope="col">type</th>
          <th scope="col">data</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.id} data-event-type={e.type}>
            <td className="num muted">{e.id}</td>
            <td className="time">
              <Time value={e.at} />
            </td>
            <td>
              <span className={`event-type event-${e.type.split(".")[1] ?? "other"}`}>{e.type}</span>
            </td>
            <td
              className="mono small event-data"
              title={e.data ? JSON.stringify(e.data, null, 2) : undefined}
            >
              {e.data ? JSON.stringify(e.data) : ""}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Steps({ steps }: { steps: RunStep[] }) {
  if (steps.length === 0) return <p className="muted small">No steps recorded.</p>;
  return (
    <ol className="steps" aria-label="Steps">
      {steps.map((s) => (
        <li key={s.id} className="step">
          <details>
            <summary>
              <span className="badge step-kind">{s.kind}</span> <span className="mono">{s.name}</span>{" "}
              <span className={`badge step-${s.status}`}>{s.status}</span>{" "}
              <span className="subtle">
                <Time value={s.startedAt} /> · {duration(between(s.startedAt, s.endedAt ?? undefined))}
              </span>
              {s.errorCode ? (
                <>
                  {" "}
                  <Code>{s.errorCode}</Code> <span className="muted small">{s.errorMessage}</span>
                </>
              ) : null}
            </summary>
            <pre className="json">{json(s.output)}</pre>
          </details>
        </li>
      ))}
    </ol>
  );
}

export function RunDetail({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [confirmRunAgain, setConfirmRunAgain] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);

  const run = useQuery(
    trpc.runs.get.queryOptions(
      { runId },
      {
        refetchInterval: (q) => {
          const status = q.state.data?.run.status;
          return status && !isCancellable({ status }) ? REFRESH_MS * 2 : 1_500;
        },
        retry: (count, error) => errorFacts(error).errorCode !== "run_not_found" && count < 2,
      },
    ),
  );
  const active = run.data ? isCancellable(run.data.run) : true;
  const events = useQuery(
    trpc.runs.events.queryOptions(
      { runId, limit: 1000 },
      { refetchInterval: active ? 1_500 : REFRESH_MS * 2, enabled: run.isSuccess },
    ),
  );
  const steps = useQuery(
    trpc.runs.steps.queryOptions(
      { runId },
      { refetchInterval: active ? 1_500 : REFRESH_MS * 2, enabled: run.isSuccess },
    ),
  );

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
    ]);

  const cancel = useMutation(
    trpc.runs.cancel.mutationOptions({
      onSuccess: (result) =>
        setNotice({
          kind: "ok",
          text:
            result.status === "cancelled"
              ? "Cancelled."
              : `Cancel requested; the run is being aborted where it runs (status ${result.status}).`,
        }),
      onError: (error) => {
        const f = errorFacts(error);
        setNotice({ kind: "error", text: `Cancel failed: ${f.errorCode ?? "error"} — ${f.message}` });
      },
      onSettled: () => {
        setConfirmCancel(false);
        return refresh();
      },
    }),
  );
  const requeue = useMutation(
    trpc.admin.requeue.mutationOptions({
      onSuccess: (result) => setNotice({ kind: "ok", text: `Requeued (was ${result.previousStatus}).` }),
      onError: (error) => {
        const f = errorFacts(error);
        setNotice({ kind: "error", text: `Requeue refused: ${f.errorCode ?? "error"} — ${f.message}` });
      },
      onSettled: () => {
        setConfirmRunAgain(false);
        return refresh();
      },
    }),
  );

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

  // See RunsPanel: the JSON is the API's Run; tRPC's inferred wire type is lossier.
  const r = run.data.run as unknown as Run;
  const again = requeueKind(r);
  const cancellable = isCancellable(r);
  const errors = [run.error, events.error, steps.error];

  return (
    <div className="run-detail">
      <p className="crumbs">
        <Link href="/storage">← Runs</Link> ·{" "}
        <Link href={`/storage${filtersToQuery({ ...EMPTY_FILTERS, sessionId: r.sessionId })}`}>
          session {r.sessionId}
        </Link>
      </p>
      <RefreshErrorBanner errors={errors} updatedAt={run.dataUpdatedAt || null} />
      <header className="run-head">
        <h1 className="mono">{r.id}</h1>
        <span data-testid="run-status">
          <StatusBadge status={r.status} />
        </span>
        {r.recoveryState ? <RecoveryBadge state={r.recoveryState} /> : null}
        <div className="spacer" />
        {cancellable ? (
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => setConfirmCancel(true)}
            disabled={cancel.isPending}
          >
            Cancel
          </button>
        ) : null}
        {again === "requeue" ? (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => requeue.mutate({ runId: r.id, requestedBy: "console" })}
            disabled={requeue.isPending}
          >
            {requeue.isPending ? "Requeuing…" : "Requeue"}
          </button>
        ) : null}
        {again === "explicit" ? (
          <button
            type="button"
            className="btn"
            onClick={() => setConfirmRunAgain(true)}
            disabled={requeue.isPending}
          >
            Run again…
          </button>
        ) : null}
      </header>
      {notice ? (
        <p className={notice.kind === "ok" ? "notice notice-ok" : "notice notice-error"} role="status">
          {notice.text}
        </p>
      ) : null}

      <div className="detail-grid detail-main">
        <section className="panel" aria-labelledby="summary-title">
          <h2 id="summary-title">Summary</h2>
          <dl className="facts facts-grid">
            <div>
              <dt>session</dt>
              <dd className="mono">
                {r.sessionId} <span className="subtle">#{r.seq}</span>
              </dd>
            </div>
            <div>
              <dt>workspace</dt>
              <dd className="mono">{r.workspaceId}</dd>
            </div>
            <div>
              <dt>priority</dt>
              <dd>{r.priority}</dd>
            </div>
            <div>
              <dt>executor</dt>
              <dd className="mono">{r.executor}</dd>
            </div>
            <div>
              <dt>attempt</dt>
              <dd>{r.attempt}</dd>
            </div>
            <div>
              <dt>timeout</dt>
              <dd>{duration(r.timeoutMs)}</dd>
            </div>
            <div>
              <dt>worker</dt>
              <dd className="mono ellipsis" title={r.workerId ?? undefined}>
                {r.workerId ?? "—"}
              </dd>
            </div>
            <div>
              <dt>parent run</dt>
              <dd>{r.parentRunId ? <RunId id={r.parentRunId} /> : "—"}</dd>
            </div>
            {r.waitingTool ? (
              <div>
                <dt>waiting for tool</dt>
                <dd className="mono">{r.waitingTool}</dd>
              </div>
            ) : null}
            <div className="span-2">
              <dt>error</dt>
              <dd>
                <Code>{r.errorCode}</Code> {r.errorMessage ? <span>{r.errorMessage}</span> : null}
              </dd>
            </div>
          </dl>
          <h3>Timeline</h3>
          <Timeline run={r} />
        </section>

        <section className="panel" aria-labelledby="recovery-title">
          <h2 id="recovery-title">Recovery</h2>
          <RecoverySection run={r} />
        </section>
      </div>

      <div className="detail-grid">
        <section className="panel" aria-labelledby="events-title">
          <h2 id="events-title">
            Events{" "}
            <span className="muted small">{events.data ? `${events.data.items.length} in order` : ""}</span>
          </h2>
          {events.data ? (
            <>
              <Events events={events.data.items as unknown as RunEvent[]} />
              {events.data.nextCursor !== null ? (
                <p className="muted small">
                  The first {events.data.items.length} events; the rest are in{" "}
                  <code>
                    GET /api/v1/runs/{runId}/events?after={events.data.nextCursor}
                  </code>
                  .
                </p>
              ) : null}
            </>
          ) : events.error ? (
            <ErrorState what="events" error={events.error} onRetry={() => events.refetch()} />
          ) : (
            <p className="muted">Loading events…</p>
          )}
        </section>
        <section className="panel" aria-labelledby="steps-title">
          <h2 id="steps-title">Steps</h2>
          {steps.data ? (
            <Steps steps={steps.data.items as unknown as RunStep[]} />
          ) : steps.error ? (
            <ErrorState what="steps" error={steps.error} onRetry={() => steps.refetch()} />
          ) : (
            <p className="muted">Loading steps…</p>
          )}
        </section>
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

      <ConfirmDialog
        open={confirmCancel}
        title="Cancel this run?"
        confirmLabel="Cancel run"
        dismissLabel="Keep it running"
        danger
        busy={cancel.isPending}
        onCancel={() => setConfirmCancel(false)}
        onConfirm={() => cancel.mutate({ runId: r.id })}
      >
        <p>
          <span className="mono">{r.id}</span> is {r.status}. A queued run is cancelled at once; a running one
          is aborted where it runs (its shell steps get SIGTERM, then SIGKILL) and ends <code>cancelled</code>
          .
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmRunAgain}
        title="Run it again anyway?"
        confirmLabel="Run again"
        dismissLabel="Leave it"
        busy={requeue.isPending}
        onCancel={() => setConfirmRunAgain(false)}
        onConfirm={() => requeue.mutate({ runId: r.id, requestedBy: "console", includeCancelled: true })}
      >
        <p>
          Someone asked to cancel <span className="mono">{r.id}</span>
          {r.cancelRequestedAt ? (
            <>
              {" "}
              (<Time value={r.cancelRequestedAt} />)
            </>
          ) : null}
          ; it is {r.status}. Running it again goes to the end of its session's queue with a fresh recovery
          budget, and executes its steps again.
        </p>
      </ConfirmDialog>
    </div>
  );
}
