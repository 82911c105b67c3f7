import type { MaintenancePlugin } from "./task";

const BATCH = 1_000;
/** The log is kept by days: a pass an hour is often enough. */
const INTERVAL_MS = 3_600_000;

/** Deletes the audit log's entries older than the retention (OAH_AUDIT_RETENTION_DAYS; 0: kept for ever). */
export const auditRetention: MaintenancePlugin = ({ host, settings }) => ({
  name: "audit-retention",
  intervalMs: settings.auditRetentionMs > 0 ? INTERVAL_MS : 0,
  async run() {
    if (settings.auditRetentionMs <= 0) return;
    const before = host.clock.now() - settings.auditRetentionMs;
    let deleted = 0;
    for (;;) {
      const batch = await host.store.pruneAudit(before, BATCH);
      deleted += batch;
      if (batch < BATCH) break;
    }
    if (deleted > 0) host.logger.info({ entries: deleted }, "audit log entries past their retention deleted");
  },
});
