import type { RecoveryPolicy } from "@oah/core";
import type { AuditStore, RecoveryStore } from "@oah/store";
import type { HostContext } from "../host-context";

/** What maintenance uses of its host. */
export type MaintenanceHost = Pick<HostContext, "hostId" | "clock" | "queue" | "leases" | "logger"> & {
  store: RecoveryStore & Pick<AuditStore, "pruneAudit">;
};

export interface MaintenanceSettings extends RecoveryPolicy {
  /**
   * Without a shared queue this process owns every run: at its start every active
   * run is stale whatever its heartbeat (docs/spec.md §7), and nobody else needs watching.
   */
  exclusiveOwner: boolean;
  staleAfterMs: number;
  /** How often hosts sharing the queue run maintenance; 0: only at start. */
  scanIntervalMs: number;
  /** How long the audit log keeps an entry; 0: for ever. */
  auditRetentionMs: number;
}

export interface MaintenanceContext {
  host: MaintenanceHost;
  settings: MaintenanceSettings;
}

export interface MaintenancePass {
  /** The pass a worker host makes before its pool starts. */
  atStart: boolean;
}

/**
 * One maintenance task of a worker host: it runs once before the pool starts, then
 * every `intervalMs`, under a lock of its own name so that one host at a time runs it.
 * It logs what it did itself; the runner logs its failures and tells the observers.
 */
export interface MaintenanceTask {
  /** Its name in logs, metrics and its lock. */
  readonly name: string;
  /** 0: only at start. */
  readonly intervalMs: number;
  run(pass: MaintenancePass): Promise<void>;
}

export type MaintenancePlugin = (context: MaintenanceContext) => MaintenanceTask;

/** The interval of a task that watches other hosts' work: none for an exclusive owner. */
export const sharedScanInterval = ({ exclusiveOwner, scanIntervalMs }: MaintenanceSettings): number =>
  exclusiveOwner ? 0 : scanIntervalMs;
