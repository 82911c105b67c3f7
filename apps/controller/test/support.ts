import { readFileSync } from "node:fs";
import type { PoolOverview } from "@oah/contract";
import {
  type OahProcess,
  parentOf,
  processesWithEnv,
  type SplitDeployment,
  startOah,
  startSplitDeployment,
} from "@oah/testing";

/** Short periods everywhere, so that leadership, scaling and drains happen within seconds. */
export const FAST_FLEET = {
  OAH_POOL_SCALE_INTERVAL_MS: "200",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
  OAH_SESSION_LOCK_TTL_MS: "3000",
  OAH_CONTROLLER_INTERVAL_MS: "200",
  OAH_CONTROLLER_LEASE_TTL_MS: "2000",
  OAH_CONTROLLER_SCALE_UP_SAMPLE_WINDOW: "1",
  OAH_CONTROLLER_SCALE_DOWN_SAMPLE_WINDOW: "3",
  OAH_CONTROLLER_SCALE_UP_COOLDOWN_MS: "500",
  OAH_CONTROLLER_SCALE_DOWN_COOLDOWN_MS: "3000",
};

export interface Fleet {
  d: SplitDeployment;
  controllers: OahProcess[];
  addController(env?: Record<string, string>): Promise<OahProcess>;
  pool(): Promise<PoolOverview>;
  /** The oah-sandbox processes of this deployment, whoever started them. */
  sandboxPids(): number[];
  /** What a controller's /snapshot answers. */
  snapshot(
    controller: OahProcess,
  ): Promise<{ leader: boolean; leaderId: string | null; desiredReplicas: number | null }>;
  dispose(): Promise<void>;
}

const isSandbox = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("oah-sandbox");
  } catch {
    return false;
  }
};

/** api-only and `controllers` oah-controllers (the process target by default), no sandbox of the test's own. */
export async function startFleet(controllers: number, env: Record<string, string> = {}): Promise<Fleet> {
  const d = await startSplitDeployment({ sandboxes: 0, env: { ...FAST_FLEET, ...env } });
  const prefix = d.env.OAH_REDIS_PREFIX!;
  const fleet: Fleet = {
    d,
    controllers: [],
    async addController(extra = {}) {
      const controller = await startOah("oah-controller", { env: { ...d.env, ...extra } });
      fleet.controllers.push(controller);
      return controller;
    },
    async pool() {
      const { status, body } = await d.client.get<PoolOverview>("/api/v1/pool");
      if (status !== 200) throw new Error(`GET /api/v1/pool answered ${status}`);
      return body;
    },
    sandboxPids: () => {
      // A sandbox's child, between its fork and its exec, still shows the sandbox's command line
      // and environment: under load, three sandboxes starting at once (each spawning its helpers)
      // were seen as four. A sandbox is a match whose parent is not one.
      const matches = processesWithEnv("OAH_REDIS_PREFIX", prefix).filter(isSandbox);
      const all = new Set(matches);
      return matches.filter((pid) => {
        try {
          return !all.has(parentOf(pid));
        } catch {
          return false;
        }
      });
    },
    async snapshot(controller) {
      const res = await fetch(`${controller.url}/snapshot`);
      return (await res.json()) as Awaited<ReturnType<Fleet["snapshot"]>>;
    },
    async dispose() {
      // SIGKILL ends a frozen process too; the controllers' sandboxes outlive them by design.
      await Promise.all(fleet.controllers.map((c) => c.stop("SIGKILL")));
      for (const pid of fleet.sandboxPids()) process.kill(pid, "SIGKILL");
      await d.dispose();
    },
  };
  try {
    for (let i = 0; i < controllers; i++) await fleet.addController();
  } catch (error) {
    await fleet.dispose();
    throw error;
  }
  return fleet;
}
