import { duration } from "@/lib/format";
import type { PoolFacts } from "@/lib/pool/facts";
import { pressuresText } from "@/lib/pool/labels";
import { ReasonBadge } from "../Badges";
import { Time } from "../Time";
import { Fact } from "./Fact";

/** The current snapshot of one host, or the totals of all hosts. */
export function SnapshotFacts({ facts, total }: { facts: PoolFacts; total: boolean }) {
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
      <Fact label="oldest ready age" value={duration(facts.oldestSchedulableReadyAgeMs)} />
      <Fact
        label="queue wait p50 / p95"
        value={`${duration(facts.queueWaitP50Ms)} / ${duration(facts.queueWaitP95Ms)}`}
      />
      <Fact
        label="pressures"
        value={<span className="mono small">{pressuresText(facts.pressures)}</span>}
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
          hint={`cooldowns left: up ${duration(facts.upCooldownRemainingMs)}, down ${duration(facts.downCooldownRemainingMs)}`}
        />
      ) : null}
      {facts.remoteActiveWorkers !== null ? (
        <Fact label="remote active" value={facts.remoteActiveWorkers} />
      ) : null}
    </dl>
  );
}
