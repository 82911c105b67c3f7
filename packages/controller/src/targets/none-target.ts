import type { FleetHost } from "@oah/core";
import { countedHosts, type ScaleTarget } from "./scale-target";

/**
 * Decides and publishes only (docs/spec.md §8): the desired replicas go out as the
 * `oah_controller_desired_replicas` gauge, for an autoscaler the user already runs.
 */
export class NoneTarget implements ScaleTarget {
  readonly kind = "none" as const;
  readonly rolloutRefusal = "the none target starts no sandboxes: restart them where they are run";

  async reconcile(_desired: number, hosts: readonly FleetHost[]): Promise<number> {
    return countedHosts(hosts).length;
  }

  async close(): Promise<void> {}
}
