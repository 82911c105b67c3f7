"use client";

import type { PoolDecision, PoolOverview, PoolSample, PoolSnapshot } from "@oah/contract";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { REFRESH_MS } from "@/lib/constants";
import { duration, fullTime, shortTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { ReasonBadge } from "./Badges";
import { ErrorState, RefreshErrorBanner } from "./ErrorBanner";
import { Time } from "./Time";

const ALL = "__all__";
/** The pool samples its history every 5 s; totals add up hosts' samples of the same 5 s. */
const BUCKET_MS = 5_000;
/** Above this many points, lines are drawn without dots. */
const MAX_DOTS = 120;

type Decision = PoolDecision & { hostId: string };

interface Facts {
  hosts: number;
  min: number;
  max: number;
  suggested: number;
  globalSuggested: number;
  desired: number;
  activeWorkers: number;
  busyWorkers: number;
  idleWorkers: number;
  slotCapacity: number;
  subagentReserveTarget: number;
  subagentReserveDeficit: number;
  readySessionCount: number;
  subagentReadySessionCount: number;
  lockedReadySessionCount: number;
  staleReadySessionCount: number;
  oldestSchedulableReadyAgeMs: number;
  queueWaitP50Ms: number | null;
  queueWaitP95Ms: number | null;
  pressures: PoolSnapshot["pressures"];
  lastRebalanceAt: number | null;
  lastRebalanceReason: PoolSnapshot["lastRebalanceReason"];
  upStreak: number | null;
  downStreak: number | null;
  upCooldownRemainingMs: number | null;
  downCooldownRemainingMs: number | null;
  remoteActiveWorkers: number | null;
}

const maxOf = (values: (number | null)[]): number | null => {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? Math.max(...present) : null;
};
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function factsOf(hosts: PoolSnapshot[]): Facts | null {
  if (hosts.length === 0) return null;
  if (hosts.length === 1) {
    const h = hosts[0]!;
    return { hosts: 1, ...h, ...h.pressure, remoteActiveWorkers: h.remoteActiveWorkers };
  }
  // Totals: capacities add up; queue-wide figures (every host reads the same queue) are the largest seen.
  const newest = [...hosts].sort((a, b) => (b.lastRebalanceAt ?? 0) - (a.lastRebalanceAt ?? 0))[0]!;
  return {
    hosts: hosts.length,
    min: sum(hosts.map((h) => h.min)),
    max: sum(hosts.map((h) => h.max)),
    suggested: sum(hosts.map((h) => h.suggested)),
    globalSuggested: Math.max(...hosts.map((h) => h.globalSuggested)),
    desired: sum(hosts.map((h) => h.desired)),
    activeWorkers: sum(hosts.map((h) => h.activeWorkers)),
    busyWorkers: sum(hosts.map((h) => h.busyWorkers)),
    idleWorkers: sum(hosts.map((h) => h.idleWorkers)),
    slotCapacity: sum(hosts.map((h) => h.slotCapacity)),
    subagentReserveTarget: Math.max(...hosts.map((h) => h.subagentReserveTarget)),
    subagentReserveDeficit: Math.max(...hosts.map((h) => h.subagentReserveDeficit)),
    readySessionCount: Math.max(...hosts.map((h) => h.pressure.readySessionCount)),
    subagentReadySessionCount: Math.max(...hosts.map((h) => h.pressure.subagentReadySessionCount)),
    lockedReadySessionCount: Math.max(...hosts.map((h) => h.pressure.lockedReadySessionCount)),
    staleReadySessionCount: Math.max(...hosts.map((h) => h.pressure.staleReadySessionCount)),
    oldestSchedulableReadyAgeMs: Math.max(...hosts.map((h) => h.pressure.oldestSchedulableReadyAgeMs)),
    queueWaitP50Ms: maxOf(hosts.map((h) => h.queueWaitP50Ms)),
    queueWaitP95Ms: maxOf(hosts.map((h) => h.queueWaitP95Ms)),
    pressures: {
      queue: Math.max(...hosts.map((h) => h.pressures.queue)),
      saturation: Math.max(...hosts.map((h) => h.pressures.saturation)),
      subagentReserve: Math.max(...hosts.map((h) => h.pressures.subagentReserve)),
      age: Math.max(...hosts.map((h) => h.pressures.age)),
    },
    lastRebalanceAt: newest.lastRebalanceAt,
    lastRebalanceReason: newest.lastRebalanceReason,
    upStreak: null,
    downStreak: null,
    upCooldownRemainingMs: null,
    downCooldownRemainingMs: null,
    remoteActiveWorkers: null,
  };
}

interface Point {
  at: number;
  ready: number;
  busy: number;
  idle: number;
  desired: number;
  p50: number | null;
  p95: number | null;
}

function pointsOf(history: PoolOverview["history"], hostId: string): Point[] {
  const toPoint = (s: PoolSample): Point => ({
    at: s.at,
    ready: s.readySessionCount,
    busy: s.busyWorkers,
    idle: s.idleWorkers,
    desired: s.desired,
    p50: s.queueWaitP50Ms,
    p95: s.queueWaitP95Ms,
  });
  if (hostId !== ALL) return (history.find((h) => h.hostId === hostId)?.samples ?? []).map(toPoint);
  const buckets = new Map<number, Point>();
  for (const { samples } of history) {
    for (const sample of samples) {
      const at = Math.round(sample.at / BUCKET_MS) * BUCKET_MS;
      const p = toPoint(sample);
      const b = buckets.get(at);
      if (!b) {
        buckets.set(at, { ...p, at });
        continue;
      }
      b.ready = Math.max(b.ready, p.ready);
      b.busy += p.busy;
      b.idle += p.idle;
      b.desired += p.desired;
      b.p50 = maxOf([b.p50, p.p50]);
      b.p95 = maxOf([b.p95, p.p95]);
    }
  }
  return [...buckets.values()].sort((a, b) => a.at - b.at);
}

function Fact({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div title={hint}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? "—" : duration(v));

function SnapshotFacts({ facts, total }: { facts: Facts; total: boolean }) {
  return (
    <dl className="facts facts-grid" aria-label="Current snapshot">
      {total ? <Fact label="hosts" value={facts.hosts} /> : null}
      <Fact
        label="min / max"
        value={`${facts.min} / ${facts.max}`}
        hint="OAH_WORKERS_MIN / OAH_WORKERS_MAX"
      />
      <Fact label="suggested" value={facts.suggested} hint="local suggestion, clamped to [min, max]" />
      <Fact label="global suggested" value={facts.globalSuggested} hint="what the whole fleet needs" />
      <Fact label="desired" value={facts.desired} hint="capacity after hysteresis" />
      <Fact
        label="workers busy / idle"
        value={`${facts.busyWorkers} / ${facts.idleWorkers}`}
        hint={`${facts.activeWorkers} active of ${facts.slotCapacity} slots`}
      />
      <Fact label="subagent reserve" value={facts.subagentReserveTarget} />
      <Fact
        label="reserve deficit"
        value={
          <span className={facts.subagentReserveDeficit > 0 ? "warn" : undefined}>
            {facts.subagentReserveDeficit}
          </span>
        }
      />
      <Fact
        label="ready sessions"
        value={facts.readySessionCount}
        hint={`${facts.subagentReadySessionCount} subagent`}
      />
      <Fact
        label="locked ready"
        value={facts.lockedReadySessionCount}
        hint="ready sessions whose lock is held"
      />
      <Fact
        label="stale ready"
        value={facts.staleReadySessionCount}
        hint="ready sessions whose lock outlived its holder"
      />
      <Fact label="oldest ready age" value={ms(facts.oldestSchedulableReadyAgeMs)} />
      <Fact
        label="queue wait p50 / p95"
        value={`${ms(facts.queueWaitP50Ms)} / ${ms(facts.queueWaitP95Ms)}`}
      />
      <Fact
        label="pressures"
        value={
          <span className="mono small">
            q{facts.pressures.queue} s{facts.pressures.saturation} r{facts.pressures.subagentReserve} a
            {facts.pressures.age}
          </span>
        }
        hint="queue, saturation, subagent reserve and age pressure"
      />
      <Fact
        label="last rebalance"
        value={
          facts.lastRebalanceReason ? (
            <>
              <ReasonBadge reason={facts.lastRebalanceReason} /> <Time value={facts.lastRebalanceAt} />
            </>
          ) : (
            "—"
          )
        }
      />
      {facts.upStreak !== null ? (
        <Fact
          label="streaks up / down"
          value={`${facts.upStreak} / ${facts.downStreak}`}
          hint={`cooldowns left: up ${ms(facts.upCooldownRemainingMs)}, down ${ms(facts.downCooldownRemainingMs)}`}
        />
      ) : null}
      {facts.remoteActiveWorkers !== null ? (
        <Fact label="remote active" value={facts.remoteActiveWorkers} />
      ) : null}
    </dl>
  );
}

const axisTime = (at: number) => shortTime(at);
/** The time axis every history chart shares. */
const timeAxis = {
  dataKey: "at",
  type: "number",
  scale: "time",
  domain: ["dataMin", "dataMax"],
  tickFormatter: axisTime,
  fontSize: 11,
} as const;

function Charts({ points }: { points: Point[] }) {
  const dots = points.length <= MAX_DOTS ? { r: 2 } : false;
  if (points.length === 0) {
    return (
      <p className="state muted">
        No samples yet: hosts record one every 5 s, so the charts fill in within a few seconds.
      </p>
    );
  }
  return (
    <div className="charts">
      <figure className="chart" data-testid="chart-capacity" data-points={points.length}>
        <figcaption>Ready sessions vs busy and idle workers vs desired capacity</figcaption>
        <ResponsiveContainer width="100%" height={190}>
          <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: -16 }}>
            <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
            <XAxis {...timeAxis} />
            <YAxis allowDecimals={false} fontSize={11} />
            <Tooltip labelFormatter={(at) => fullTime(Number(at))} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line
              type="linear"
              dataKey="ready"
              name="ready sessions"
              stroke="#2563eb"
              dot={dots}
              isAnimationActive={false}
            />
            <Line
              type="linear"
              dataKey="busy"
              name="busy workers"
              stroke="#d97706"
              dot={dots}
              isAnimationActive={false}
            />
            <Line
              type="linear"
              dataKey="idle"
              name="idle workers"
              stroke="#16a34a"
              dot={dots}
              isAnimationActive={false}
            />
            <Line
              type="stepAfter"
              dataKey="desired"
              name="desired"
              stroke="#6b7280"
              strokeDasharray="5 3"
              dot={dots}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </figure>
      <figure className="chart" data-testid="chart-queue-wait" data-points={points.length}>
        <figcaption>Queue wait p50 / p95</figcaption>
        <ResponsiveContainer width="100%" height={190}>
          <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
            <XAxis {...timeAxis} />
            <YAxis fontSize={11} width={64} tickFormatter={(v: number) => duration(v)} />
            <Tooltip
              labelFormatter={(at) => fullTime(Number(at))}
              formatter={(v) => (typeof v === "number" ? duration(v) : "—")}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line
              type="linear"
              dataKey="p50"
              name="p50"
              stroke="#0891b2"
              dot={dots}
              connectNulls
              isAnimationActive={false}
            />
            <Line
              type="linear"
              dataKey="p95"
              name="p95"
              stroke="#9333ea"
              dot={dots}
              connectNulls
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </figure>
    </div>
  );
}

function Decisions({ decisions, showHost }: { decisions: Decision[]; showHost: boolean }) {
  if (decisions.length === 0) return <p className="muted small">No decisions recorded yet.</p>;
  return (
    <ol className="timeline" aria-label="Recent decisions">
      {decisions.map((d) => (
        <li
          key={`${d.hostId}-${d.at}-${d.reason}`}
          data-testid="decision"
          data-host={d.hostId}
          data-at={d.at}
          data-reason={d.reason}
        >
          <span className="timeline-time">
            <Time value={d.at} />
          </span>
          <ReasonBadge reason={d.reason} />
          <span className="timeline-main">
            desired <strong>{d.previousDesired ?? "—"}</strong> → <strong>{d.desired}</strong>
            <span className="muted">
              {" "}
              · suggested {d.localSuggested} local / {d.globalSuggested} global · ready {d.readySessionCount}{" "}
              · busy {d.busyWorkers}/{d.activeWorkers} active · remote {d.remoteActiveWorkers}
            </span>
          </span>
          <span className="mono small muted" title="queue, saturation, subagent reserve and age pressure">
            q{d.pressures.queue} s{d.pressures.saturation} r{d.pressures.subagentReserve} a{d.pressures.age}
          </span>
          {showHost ? <span className="mono small host-tag">{d.hostId}</span> : null}
        </li>
      ))}
    </ol>
  );
}

function Slots({ host }: { host: PoolSnapshot }) {
  return (
    <ul className="slots" aria-label={`Slots of ${host.hostId}`}>
      {host.slots.map((slot) => (
        <li
          key={slot.id}
          className={`slot slot-${slot.state}`}
          title={slot.runId ? `${slot.sessionId} · ${slot.runId}` : slot.state}
        >
          <span className="mono">{slot.id.split("-").at(-1)}</span> {slot.state}
          {slot.runId ? <span className="mono subtle"> {slot.sessionId}</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function PoolSection() {
  const trpc = useTRPC();
  const pool = useQuery(trpc.admin.pool.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  const [hostId, setHostId] = useState<string>(ALL);

  const data = pool.data;
  const hosts = data?.hosts ?? [];
  const selectedHost = hostId === ALL ? null : (hosts.find((h) => h.hostId === hostId) ?? null);
  // A host that went away: back to the totals.
  const effective = hostId !== ALL && !selectedHost ? ALL : hostId;
  const facts = factsOf(effective === ALL ? hosts : selectedHost ? [selectedHost] : []);
  const points = data ? pointsOf(data.history, effective) : [];
  const decisions = (data?.recentDecisions ?? []).filter((d) => effective === ALL || d.hostId === effective);

  return (
    <section className="panel pool" id="pool" aria-labelledby="pool-title">
      <div className="panel-head">
        <h2 id="pool-title">Pool</h2>
        <span className="muted small">
          {data ? `${hosts.length} live ${hosts.length === 1 ? "host" : "hosts"}` : ""}
        </span>
      </div>
      {data && pool.error ? (
        <RefreshErrorBanner errors={[pool.error]} updatedAt={pool.dataUpdatedAt || null} />
      ) : null}
      {!data && pool.isPending ? (
        <div className="state" role="status">
          Loading the pool…
        </div>
      ) : !data && pool.error ? (
        <ErrorState what="the pool" error={pool.error} onRetry={() => pool.refetch()} />
      ) : hosts.length === 0 ? (
        <div className="state">
          <p>
            <strong>No live worker host.</strong>
          </p>
          <p className="muted">
            Start one: <code>npx oah-sandbox</code> (split mode), or run oah-api without{" "}
            <code>--api-only</code>.
          </p>
        </div>
      ) : (
        <>
          <fieldset className="host-picker">
            <legend className="visually-hidden">Host</legend>
            <button
              type="button"
              className="chip"
              aria-pressed={effective === ALL}
              onClick={() => setHostId(ALL)}
            >
              All hosts
            </button>
            {hosts.map((h) => (
              <button
                key={h.hostId}
                type="button"
                className="chip mono"
                aria-pressed={effective === h.hostId}
                onClick={() => setHostId(h.hostId)}
              >
                {h.hostId}
                <span className="subtle"> {h.processKind}</span>
              </button>
            ))}
          </fieldset>
          {facts ? <SnapshotFacts facts={facts} total={effective === ALL} /> : null}
          {selectedHost ? <Slots host={selectedHost} /> : null}
          <Charts points={points} />
          <div className="decisions">
            <h3>
              Recent decisions <span className="muted small">newest first</span>
            </h3>
            <Decisions decisions={decisions} showHost={effective === ALL} />
          </div>
        </>
      )}
    </section>
  );
}
