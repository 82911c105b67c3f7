import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { FleetHost } from "@oah/core";
import type { Logger } from "@oah/engine";
import { countedHosts, type LeaderActs, type ScaleTarget, scaleDownVictims } from "./scale-target";

export interface ProcessTargetOptions {
  /** The oah-sandbox entry point, run with this process's Node. */
  sandboxBin: string;
  /** The environment of every sandbox it starts (Redis, PostgreSQL, prefix, ...). */
  env: NodeJS.ProcessEnv;
  slotsPerSandbox: number;
  /** Prefix of the host ids it gives its sandboxes. */
  idPrefix: string;
  /** How long a started sandbox may take to appear on the pools' board before it is given up. */
  startTimeoutMs?: number;
  logger: Logger;
}

/**
 * Sandboxes as child processes of the controller, on its own machine (the default target).
 * Each gets its host id from the controller and exits once drained (OAH_EXIT_WHEN_DRAINED),
 * so that a scale-down or a rolling restart is a drain order and nothing more. Sandboxes it
 * did not start (another controller's, an operator's) count the same, and are drained the
 * same way; they are chosen last.
 */
export class ProcessTarget implements ScaleTarget {
  readonly kind = "process" as const;
  readonly rolloutRefusal = null;
  private readonly children = new Map<string, { child: ChildProcess; startedAt: number }>();

  constructor(private readonly options: ProcessTargetOptions) {}

  async reconcile(desired: number, hosts: readonly FleetHost[], leader: LeaderActs): Promise<number> {
    const now = Date.now();
    const listed = new Set(hosts.map((h) => h.hostId));
    const starting = [...this.children].filter(([hostId]) => !listed.has(hostId));
    for (const [hostId, { child, startedAt }] of starting) {
      if (now - startedAt > (this.options.startTimeoutMs ?? 60_000)) {
        this.options.logger.error({ hostId }, "a sandbox did not come up in time; stopping it");
        child.kill("SIGKILL");
      }
    }
    const counted = countedHosts(hosts).length + starting.length;
    if (counted < desired) {
      if (!(await leader.stillLeads())) return counted;
      for (let i = counted; i < desired; i++) this.start();
      return desired;
    }
    if (starting.length > 0) return counted;
    for (const victim of scaleDownVictims(hosts, desired, (id) => this.children.has(id))) {
      if (!(await leader.order(victim.hostId, "drain"))) break;
      this.options.logger.info(
        { hostId: victim.hostId, busySlots: victim.busySlots },
        "draining a sandbox to remove it",
      );
    }
    return counted;
  }

  private start(): void {
    const { sandboxBin, env, slotsPerSandbox, idPrefix, logger } = this.options;
    const hostId = `${idPrefix}-${randomBytes(4).toString("hex")}`;
    const child = spawn(process.execPath, [sandboxBin, "--slots", String(slotsPerSandbox), "--port", "0"], {
      env: { ...env, OAH_HOST_ID: hostId, OAH_EXIT_WHEN_DRAINED: "1" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    this.children.set(hostId, { child, startedAt: Date.now() });
    child.once("exit", (code, signal) => {
      this.children.delete(hostId);
      logger.info({ hostId, code, signal }, "sandbox exited");
    });
    logger.info({ hostId, pid: child.pid }, "sandbox started");
  }

  /** The sandboxes it started keep serving: another controller adopts them. */
  async close(): Promise<void> {
    for (const { child } of this.children.values()) child.unref();
  }
}
