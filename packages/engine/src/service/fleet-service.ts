import type { FleetWorkload, HostOrderAccepted, PoolOverview, Rollout, RolloutInput } from "@oah/contract";
import type { ControllerChannel, HostOrders } from "@oah/coordination";
import { type HostOrder, OahError, ORDERED_STATE } from "@oah/core";
import { newRolloutId } from "@oah/core/run-id";
import type { Clock } from "../clock";
import type { Logger } from "../logger";
import { type PoolReports, poolOverview } from "./pool-overview";

export interface FleetServiceOptions {
  pools: PoolReports;
  orders: HostOrders;
  /** Null where no controller can run (no Redis). */
  controller: ControllerChannel | null;
  /** What the fleet works on now: parked runs, and each workspace's load. */
  workload: () => Promise<FleetWorkload>;
  logger: Logger;
  clock: Clock;
}

/**
 * What the API asks of the fleet (docs/spec.md §8): the pools and the controller's report,
 * the orders to hosts (cordon, uncordon, drain), and rolling restarts.
 */
export class FleetService {
  constructor(private readonly options: FleetServiceOptions) {}

  async poolOverview(): Promise<PoolOverview> {
    const [pools, controller, workload] = await Promise.all([
      poolOverview(this.options.pools),
      this.options.controller?.report() ?? null,
      this.options.workload(),
    ]);
    return { ...pools, controller, ...workload };
  }

  workload(): Promise<FleetWorkload> {
    return this.options.workload();
  }

  cordon(hostId: string): Promise<HostOrderAccepted> {
    return this.order(hostId, "cordon");
  }

  uncordon(hostId: string): Promise<HostOrderAccepted> {
    return this.order(hostId, null);
  }

  drain(hostId: string): Promise<HostOrderAccepted> {
    return this.order(hostId, "drain");
  }

  /** Orders a live worker host; the host takes the state at its next tick. */
  private async order(hostId: string, order: HostOrder | null): Promise<HostOrderAccepted> {
    const reports = await this.options.pools.reports();
    if (!reports.some((r) => r.snapshot.hostId === hostId))
      throw new OahError("host_not_found", `no live worker host ${hostId}`);
    await this.options.orders.give(hostId, order);
    this.options.logger.info({ hostId, order: order ?? "uncordon" }, "host order given");
    return { hostId, state: ORDERED_STATE[order ?? "uncordon"] };
  }

  /** A rolling restart `caller` asks for; the name its input gives as who asks is kept beside. */
  async rollout(input: RolloutInput, caller: string): Promise<{ rolloutId: string }> {
    const controller = await this.leadingController();
    const rollout: Rollout = {
      rolloutId: newRolloutId(),
      state: "pending",
      requestedBy: caller,
      claimedBy: input.requestedBy ?? null,
      requestedAt: this.options.clock.now(),
      startedAt: null,
      finishedAt: null,
      steps: [],
      replaced: 0,
      total: 0,
      message: null,
    };
    await controller.requestRollout(rollout);
    this.options.logger.info({ rolloutId: rollout.rolloutId }, "rolling restart requested");
    return { rolloutId: rollout.rolloutId };
  }

  async rolloutProgress(rolloutId: string): Promise<Rollout> {
    const rollout = await this.options.controller?.rollout(rolloutId);
    if (!rollout) throw new OahError("rollout_not_found", `no rollout ${rolloutId}`);
    return rollout;
  }

  /** A rolling restart needs a controller that leads now: it is the one that starts sandboxes. */
  private async leadingController(): Promise<ControllerChannel> {
    const { controller } = this.options;
    if (controller && (await controller.report()) !== null) return controller;
    throw new OahError(
      "controller_unavailable",
      "no oah-controller leads: a rolling restart is carried out by the leading controller",
    );
  }
}
