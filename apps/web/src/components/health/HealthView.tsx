"use client";

import type { JamClass } from "@oah/contract";
import type { JamKind } from "@oah/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useMay } from "@/lib/actor";
import { REFRESH_MS } from "@/lib/constants";
import { failureNotice, type Notice, noticeClass } from "@/lib/notice";
import { JAM_LABELS } from "@/lib/sessions/jams";
import { inspectorHref } from "@/lib/sessions/links";
import { repairNotice } from "@/lib/sessions/notices";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";

function JamRow({
  jam,
  mayRepair,
  onRepaired,
}: {
  jam: JamClass;
  mayRepair: boolean;
  onRepaired: (kind: JamKind, notice: Notice) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const repair = useMutation(
    trpc.admin.repairJams.mutationOptions({
      onSuccess: (result) => onRepaired(jam.kind, repairNotice(result)),
      onError: (error) => onRepaired(jam.kind, failureNotice("Repair refused", errorFacts(error))),
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
    }),
  );
  const label = JAM_LABELS[jam.kind];
  return (
    <tr data-jam-kind={jam.kind} data-count={jam.count}>
      <td>
        <strong>{label.title}</strong>
        <div className="mono subtle">{jam.kind}</div>
      </td>
      <td className="num">{jam.count}</td>
      <td>
        {jam.sessions.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          jam.sessions.map((sessionId) => (
            <Link key={sessionId} href={inspectorHref(sessionId)} className="mono plain-link">
              {sessionId}{" "}
            </Link>
          ))
        )}
      </td>
      <td className="muted small">{label.repair}</td>
      {mayRepair ? (
        <td>
          <button
            type="button"
            className="btn btn-small"
            disabled={repair.isPending}
            aria-label={`Repair ${jam.kind}`}
            onClick={() => repair.mutate({ kind: jam.kind })}
          >
            Repair
          </button>
        </td>
      ) : null}
    </tr>
  );
}

/** The jammed sessions of each kind (docs/spec.md §7), with a repair per kind for those who may operate. */
export function HealthView() {
  const trpc = useTRPC();
  const mayRepair = useMay("operate");
  const [notices, setNotices] = useState<Partial<Record<JamKind, Notice>>>({});
  const jams = useQuery(trpc.admin.jams.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  return (
    <section className="panel" aria-labelledby="health-title">
      <div className="panel-head">
        <h1 id="health-title">Health</h1>
        <span className="muted small">jammed sessions the queue holds, by kind</span>
      </div>
      {jams.data && jams.error ? (
        <RefreshErrorBanner errors={[jams.error]} updatedAt={jams.dataUpdatedAt || null} />
      ) : null}
      {Object.entries(notices).map(([kind, notice]) =>
        notice ? (
          <p key={kind} className={noticeClass(notice)} role="status" data-repair-result={kind}>
            <span className="mono">{kind}</span>: {notice.text}
          </p>
        ) : null,
      )}
      {!jams.data && jams.error ? (
        <ErrorState what="the jammed sessions" error={jams.error} onRetry={() => jams.refetch()} />
      ) : !jams.data ? (
        <div className="state" role="status">
          Scanning the queue…
        </div>
      ) : (
        <div className="table-wrap">
          <table className="dense-table" aria-label="Jammed sessions">
            <thead>
              <tr>
                <th>Kind</th>
                <th>Sessions</th>
                <th>Which</th>
                <th>Repair</th>
                {mayRepair ? <th aria-label="Actions" /> : null}
              </tr>
            </thead>
            <tbody>
              {jams.data.classes.map((jam) => (
                <JamRow
                  key={jam.kind}
                  jam={jam}
                  mayRepair={mayRepair}
                  onRepaired={(kind, notice) => setNotices((all) => ({ ...all, [kind]: notice }))}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
