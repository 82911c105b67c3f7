import type { FleetHost } from "@oah/core";
import type { Logger } from "@oah/engine";
import {
  connectWorkloadApi,
  type KubernetesWorkload,
  POD_DELETION_COST,
  type PodFacts,
  type WorkloadApi,
  type WorkloadScale,
} from "./kubernetes-api";
import { countedHosts, type LeaderActs, type ScaleTarget, scaleDownVictims } from "./scale-target";

export { type KubernetesWorkload, POD_DELETION_COST };

/** Below any cost an operator would give a pod: the ReplicaSet removes the drained pods first. */
export const DRAINED_POD_DELETION_COST = "-1000";

/** Tries of one tick's scale write while someone else keeps changing the scale (409 Conflict). */
const SCALE_WRITE_ATTEMPTS = 4;

class ScaleConflict extends Error {}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/** The pods of the workload as the board shows them, now and on their way out. */
interface PodsSeen {
  scale: WorkloadScale;
  /** Pods of the workload that stay in its replicas. */
  live: FleetHost[];
  /** Every host on the board but the pods on their way out. */
  staying: FleetHost[];
  /** Replicas not on the board yet (scheduled, pulling, starting, or restarting). */
  starting: number;
  counted: number;
  /** What was read of the drained pods (a Deployment's only). */
  drainedPods: Map<string, PodFacts>;
}

/**
 * Sandboxes as the pods of a Deployment or a StatefulSet (docs/spec.md §8), each named by its pod
 * (OAH_HOST_ID from the downward API), sized through the workload's `/scale`.
 *
 * A scale-up raises the replicas by what the fleet lacks. A scale-down removes no pod before it
 * has drained: the victims get a drain order; once one shows `drained`, a Deployment's pod gets
 * the lowest deletion cost and, on a later tick (once the ReplicaSet's cache has the
 * annotation), the replicas drop by the drained pods, which are then the ones removed; a
 * StatefulSet always removes its highest ordinals, so those are the victims. Pods that have not
 * come up are taken back first (Kubernetes removes unready pods before ready ones). Nothing is
 * removed while the workload has more pods than replicas (a rollout under way).
 *
 * Every write is made under the lease (`stillLeads` right before it) and names the scale's
 * resourceVersion: a write that lost a race is read again and retried.
 */
export class KubernetesTarget implements ScaleTarget {
  readonly kind = "kubernetes" as const;
  readonly rolloutRefusal: string | null;
  private readonly podName: RegExp;
  private lastError: string | undefined;

  constructor(
    private readonly api: WorkloadApi,
    private readonly workload: KubernetesWorkload,
    private readonly logger: Logger,
  ) {
    // A StatefulSet removes its highest ordinals, which are the replacements, not the old pods.
    this.rolloutRefusal =
      workload.kind === "StatefulSet"
        ? "a StatefulSet removes its highest ordinals, not the old pods: restart it with kubectl rollout restart"
        : null;
    const name = escapeRegExp(workload.name);
    // A Deployment's pods are <name>-<template hash>-<suffix>; a StatefulSet's <name>-<ordinal>.
    this.podName =
      workload.kind === "Deployment"
        ? new RegExp(`^${name}-[a-z0-9]+-[a-z0-9]+$`)
        : new RegExp(`^${name}-\\d+$`);
  }

  static async fromConfig(config: KubernetesWorkload, logger: Logger): Promise<KubernetesTarget> {
    return new KubernetesTarget(await connectWorkloadApi(config), config, logger);
  }

  async reconcile(desired: number, hosts: readonly FleetHost[], leader: LeaderActs): Promise<number> {
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const counted = await this.step(desired, hosts, leader);
          if (this.lastError)
            this.logger.info({ workload: this.workload }, "the workload's scale answers again");
          this.lastError = undefined;
          return counted;
        } catch (error) {
          if (!(error instanceof ScaleConflict) || attempt === SCALE_WRITE_ATTEMPTS) throw error;
          this.logger.info(
            { workload: this.workload, attempt },
            "the workload's scale changed since it was read (409 Conflict); reading it again",
          );
        }
      }
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError)
        this.logger.warn({ err: error, workload: this.workload }, "could not scale the sandboxes' workload");
      this.lastError = message;
      return countedHosts(hosts).length;
    }
  }

  async close(): Promise<void> {}

  /** One read of the scale, and at most one write of it. Answers the sandboxes counted. */
  private async step(desired: number, hosts: readonly FleetHost[], leader: LeaderActs): Promise<number> {
    const seen = await this.see(hosts);
    const { scale, counted, starting } = seen;
    if (counted < desired) {
      const replicas = scale.replicas + desired - counted;
      return (await this.scaleTo(scale, replicas, leader, "scale up")) ? desired : counted;
    }
    // More pods than replicas: a rollout's surge, or pods being removed. A scale-down now would
    // be counted against pods that are about to go, and could lower the replicas below `desired`.
    if (scale.pods > scale.replicas) return counted;
    const removal =
      this.workload.kind === "Deployment"
        ? await this.deploymentRemoval(seen, desired, leader)
        : this.statefulSetRemoval(seen, desired);
    if (starting === 0) await this.orderDrains(seen, desired, leader);
    if (removal.pods === 0) return counted;
    const why = removal.cancelled > 0 ? "taking back pods that have not come up" : "removing drained pods";
    return (await this.scaleTo(scale, scale.replicas - removal.pods, leader, why))
      ? counted - removal.cancelled
      : counted;
  }

  private async see(hosts: readonly FleetHost[]): Promise<PodsSeen> {
    const scale = await this.api.readScale();
    const pods = hosts.filter((h) => this.podName.test(h.hostId));
    const drainedPods = new Map<string, PodFacts>();
    const leaving = new Set<string>();
    if (this.workload.kind === "Deployment") {
      // A removed pod stays on the board while it stops: only the API server tells it from one that stays.
      const drained = pods.filter((h) => h.state === "drained");
      const facts = await Promise.all(drained.map((h) => this.api.readPod(h.hostId)));
      drained.forEach((h, i) => {
        const pod = facts[i];
        if (!pod || pod.terminating) leaving.add(h.hostId);
        else drainedPods.set(h.hostId, pod);
      });
    } else {
      for (const h of pods) if (this.ordinalOf(h.hostId) >= scale.replicas) leaving.add(h.hostId);
    }
    const live = pods.filter((h) => !leaving.has(h.hostId));
    const staying = hosts.filter((h) => !leaving.has(h.hostId));
    const starting = Math.max(0, scale.replicas - live.length);
    return { scale, live, staying, starting, counted: countedHosts(staying).length + starting, drainedPods };
  }

  /**
   * How many pods a Deployment can lose now: some of those not up yet, else its drained pods
   * once they carry the lowest deletion cost. Either way only while every other pod is ready:
   * the ReplicaSet removes unready pods first, and one on the board may already be claiming.
   */
  private async deploymentRemoval(
    { live, starting, counted, drainedPods }: PodsSeen,
    desired: number,
    leader: LeaderActs,
  ): Promise<{ pods: number; cancelled: number }> {
    const none = { pods: 0, cancelled: 0 };
    if (starting > 0) {
      const cancelled = Math.min(starting, counted - desired);
      if (cancelled === 0 || !(await this.allReady(live)).ready) return none;
      return { pods: cancelled, cancelled };
    }
    if (drainedPods.size === 0) return none;
    const unmarked = [...drainedPods].filter(([, pod]) => pod.deletionCost !== DRAINED_POD_DELETION_COST);
    if (unmarked.length > 0) {
      for (const [pod] of unmarked) {
        if (!(await leader.stillLeads())) return none;
        await this.api.setDeletionCost(pod, DRAINED_POD_DELETION_COST);
        this.logger.info({ pod }, "a drained pod is marked to be removed first");
      }
      return none;
    }
    const others = live.filter((h) => !drainedPods.has(h.hostId));
    const { ready, facts } = await this.allReady(others);
    if (!ready) return none;
    // A pod marked once and serving again (uncordoned) would tie with the drained ones.
    const remarked = others.filter((_, i) => facts[i]?.deletionCost === DRAINED_POD_DELETION_COST);
    if (remarked.length > 0) {
      for (const { hostId: pod } of remarked) {
        if (!(await leader.stillLeads())) return none;
        await this.api.setDeletionCost(pod, null);
        this.logger.info({ pod }, "a pod that serves again is no longer marked to be removed first");
      }
      return none;
    }
    return { pods: drainedPods.size, cancelled: 0 };
  }

  /** Whether these pods are all ready and none is terminating, with what was read of each. */
  private async allReady(pods: readonly FleetHost[]) {
    const facts = await Promise.all(pods.map((h) => this.api.readPod(h.hostId)));
    return { ready: facts.every((pod) => pod?.ready && !pod.terminating), facts };
  }

  /**
   * How many pods a StatefulSet can lose now: it removes its highest ordinals, so as many of
   * them, from the top, as have drained or (within the excess) have not come up yet.
   */
  private statefulSetRemoval({ scale, live, counted }: PodsSeen, desired: number) {
    const byName = new Map(live.map((h) => [h.hostId, h]));
    let excess = counted - desired;
    let pods = 0;
    let cancelled = 0;
    for (let ordinal = scale.replicas - 1; ordinal >= 0; ordinal--) {
      const host = byName.get(`${this.workload.name}-${ordinal}`);
      if (host?.state === "drained") pods++;
      else if (!host && excess > 0) {
        excess--;
        pods++;
        cancelled++;
      } else break;
    }
    return { pods, cancelled };
  }

  /** Drain orders to the pods a scale-down to `desired` removes; none while a drain is under way. */
  private async orderDrains(seen: PodsSeen, desired: number, leader: LeaderActs): Promise<void> {
    const victims =
      this.workload.kind === "Deployment"
        ? scaleDownVictims(seen.staying, desired, (id) => this.podName.test(id)).filter((h) =>
            this.podName.test(h.hostId),
          )
        : this.highestOrdinals(seen, desired);
    for (const victim of victims) {
      if (!(await leader.order(victim.hostId, "drain"))) return;
      this.logger.info({ hostId: victim.hostId, busySlots: victim.busySlots }, "draining a pod to remove it");
    }
  }

  private highestOrdinals({ scale, live, staying }: PodsSeen, desired: number): FleetHost[] {
    if (staying.some((h) => h.state === "draining")) return [];
    const excess = countedHosts(staying).length - desired;
    const byName = new Map(live.map((h) => [h.hostId, h]));
    const victims: FleetHost[] = [];
    for (let ordinal = scale.replicas - 1; ordinal >= 0 && victims.length < excess; ordinal--) {
      const host = byName.get(`${this.workload.name}-${ordinal}`);
      if (!host) break;
      if (host.state !== "drained") victims.push(host);
    }
    return victims;
  }

  /** Writes the replicas under the lease; false (nothing written) once deposed. */
  private async scaleTo(scale: WorkloadScale, replicas: number, leader: LeaderActs, why: string) {
    if (replicas === scale.replicas || !(await leader.stillLeads())) return false;
    if (!(await this.api.writeScale(scale, replicas))) throw new ScaleConflict(`${why}: 409 Conflict`);
    this.logger.info(
      { workload: this.workload, from: scale.replicas, to: replicas, why },
      "scaled the sandboxes",
    );
    return true;
  }

  private ordinalOf(hostId: string): number {
    return Number(hostId.slice(this.workload.name.length + 1));
  }
}
