"use client";

import type { StorageOverview } from "@oah/contract";
import { RECOVERY_STATES, RUN_STATUSES } from "@oah/core";
import { isOnly, type RunFilters } from "@/lib/storage-filters/view";
import { Time } from "./Time";

type Apply = (filters: Partial<RunFilters>) => void;

/** The recovery block's cards: each counts one figure of the overview and filters the list by it. */
const RECOVERY_CARDS: {
  label: string;
  count: "trackedRuns" | "quarantinedRuns" | "requeuedRuns" | "failedRecoveryRuns" | "workerRecoveryFailures";
  className: string;
  filter: Partial<RunFilters>;
  testId: string;
  hint: string;
}[] = [
  {
    label: "tracked",
    count: "trackedRuns",
    className: "recovery-card",
    filter: { recoveryState: [...RECOVERY_STATES] },
    testId: "overview-recovery-tracked",
    hint: "Runs recovery has acted on (any recovery state)",
  },
  {
    label: "quarantined",
    count: "quarantinedRuns",
    className: "recovery-card recovery-quarantined",
    filter: { recoveryState: ["quarantined"] },
    testId: "overview-recovery-quarantined",
    hint: "Runs recovery gave up on; an operator has to look at them",
  },
  {
    label: "requeued",
    count: "requeuedRuns",
    className: "recovery-card recovery-requeued",
    filter: { recoveryState: ["requeued"] },
    testId: "overview-recovery-requeued",
    hint: "Runs put back in their queue by recovery or by an operator",
  },
  {
    label: "failed recovery",
    count: "failedRecoveryRuns",
    className: "recovery-card recovery-failed",
    filter: { recoveryState: ["failed"] },
    testId: "overview-recovery-failed",
    hint: "Runs recovery failed closed (strategy fail)",
  },
  {
    label: "worker recovery failures",
    count: "workerRecoveryFailures",
    className: "recovery-card",
    filter: { errorCode: ["worker_recovery_failed"] },
    testId: "overview-recovery-worker-failures",
    hint: "Runs that ended with worker_recovery_failed",
  },
];

function Card({
  label,
  count,
  className,
  filter,
  current,
  onApply,
  testId,
  hint,
}: {
  label: string;
  count: number | undefined;
  className: string;
  filter: Partial<RunFilters>;
  current: RunFilters;
  onApply: Apply;
  testId: string;
  hint: string;
}) {
  return (
    <button
      type="button"
      className={`card ${className}`}
      aria-pressed={isOnly(current, filter)}
      data-testid={testId}
      title={hint}
      onClick={() => onApply(filter)}
    >
      <span className="card-label">{label}</span>
      <span className="card-count" data-count={count ?? ""}>
        {count === undefined ? "…" : count.toLocaleString("en-US")}
      </span>
    </button>
  );
}

export function OverviewCards({
  overview,
  filters,
  onApply,
}: {
  overview: StorageOverview | undefined;
  filters: RunFilters;
  onApply: Apply;
}) {
  const recovery = overview?.recovery;
  const total = overview ? Object.values(overview.statusCounts).reduce((a, b) => a + b, 0) : undefined;
  return (
    <section className="overview" aria-label="Overview">
      <div className="overview-group">
        <h2 className="group-title">
          Runs by status{" "}
          <span className="muted">
            {total === undefined ? "" : `· ${total.toLocaleString("en-US")} in all`}
          </span>
        </h2>
        <div className="cards">
          {RUN_STATUSES.map((status) => (
            <Card
              key={status}
              label={status}
              count={overview?.statusCounts[status]}
              className={`status-card status-${status}`}
              filter={{ status: [status] }}
              current={filters}
              onApply={onApply}
              testId={`overview-status-${status}`}
              hint={`Show ${status} runs`}
            />
          ))}
        </div>
        {overview && total ? (
          <div
            className="status-bar"
            role="img"
            aria-label={`Share of runs by status: ${RUN_STATUSES.map((s) => `${s} ${overview.statusCounts[s]}`).join(", ")}`}
          >
            {RUN_STATUSES.filter((s) => overview.statusCounts[s] > 0).map((s) => (
              <span
                key={s}
                className={`status-${s}`}
                style={{ flex: `${overview.statusCounts[s]} 1 0` }}
                title={`${s}: ${overview.statusCounts[s].toLocaleString("en-US")} (${((100 * overview.statusCounts[s]) / total).toFixed(1)} %)`}
              />
            ))}
          </div>
        ) : null}
      </div>
      <div className="overview-group">
        <h2 className="group-title">Recovery</h2>
        <div className="cards recovery-cards">
          {RECOVERY_CARDS.map((card) => (
            <Card
              key={card.testId}
              label={card.label}
              count={recovery?.[card.count]}
              className={card.className}
              filter={card.filter}
              current={filters}
              onApply={onApply}
              testId={card.testId}
              hint={card.hint}
            />
          ))}
        </div>
        <dl className="facts facts-inline">
          <div>
            <dt>Newest quarantine</dt>
            <dd>
              <Time value={recovery?.newestQuarantinedAt} />
            </dd>
          </div>
          <div>
            <dt>Oldest quarantine</dt>
            <dd>
              <Time value={recovery?.oldestQuarantinedAt} />
            </dd>
          </div>
          <div>
            <dt>Last recovery</dt>
            <dd>
              <Time value={recovery?.newestRecoveredAt} />
            </dd>
          </div>
        </dl>
      </div>
      <div className="overview-group overview-reasons">
        <h2 className="group-title" id="top-reasons">
          Top quarantine reasons
        </h2>
        {recovery && recovery.topQuarantineReasons.length === 0 ? (
          <p className="muted small">Nothing is quarantined.</p>
        ) : (
          <ul className="reasons" aria-labelledby="top-reasons">
            {(recovery?.topQuarantineReasons ?? []).map(({ reason, count }) => (
              <li key={reason}>
                <button
                  type="button"
                  className="reason"
                  title="Show quarantined runs (each row names its reason)"
                  onClick={() => onApply({ recoveryState: ["quarantined"] })}
                >
                  <span className="mono" title={reason}>
                    {reason}
                  </span>
                  <span className="reason-count">{count.toLocaleString("en-US")}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
