import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { EngineObservers, Logger } from "@oah/engine";
import Database from "better-sqlite3";

/**
 * The worker host's own diagnostics (docs/spec.md §10): with PostgreSQL as the central
 * store, each host keeps what it executed (executions, step outputs, timings) in
 * a local SQLite file. It takes no part in scheduling and is never synchronised;
 * if it cannot be opened or written, the host logs a warning and goes on without it.
 */
export function openLocalJournal(file: string, hostId: string, logger: Logger): EngineObservers {
  let db: Database.Database | null;
  try {
    mkdirSync(dirname(file), { recursive: true });
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    // Diagnostics: what a power loss may take of the last writes is not worth a sync per write.
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 2000");
    db.exec(`
      CREATE TABLE IF NOT EXISTS executions (
        run_id TEXT NOT NULL, attempt INTEGER NOT NULL, host_id TEXT NOT NULL, session_id TEXT NOT NULL,
        executor TEXT NOT NULL, worker_id TEXT, queue_wait_ms INTEGER, started_at TEXT NOT NULL,
        ended_at TEXT, status TEXT, error_code TEXT, duration_ms INTEGER, PRIMARY KEY (run_id, attempt));
      CREATE TABLE IF NOT EXISTS step_outputs (
        id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, attempt INTEGER NOT NULL, kind TEXT NOT NULL,
        name TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT, output TEXT, duration_ms INTEGER,
        recorded_at TEXT NOT NULL);`);
  } catch (error) {
    logger.warn({ err: error, file }, "the local history.db cannot be opened; going on without it");
    return {};
  }
  const started =
    db.prepare(`INSERT OR REPLACE INTO executions (run_id, attempt, host_id, session_id, executor,
    worker_id, queue_wait_ms, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const finished = db.prepare(`UPDATE executions SET ended_at = ?, status = ?, error_code = ?, duration_ms = ?
    WHERE run_id = ? AND attempt = ?`);
  const step = db.prepare(`INSERT INTO step_outputs (run_id, attempt, kind, name, status, error_code, output,
    duration_ms, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // Writes wait for the end of the event loop's turn and go in together, in one transaction:
  // a busy host pays one commit for many runs, off the path of the runs themselves.
  let pending: (() => unknown)[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    if (!db) return;
    try {
      db.transaction(() => {
        for (const fn of batch) fn();
      })();
    } catch (error) {
      logger.warn({ err: error, file }, "the local history.db cannot be written; going on without it");
      db = null;
    }
  };
  const write = (fn: () => unknown) => {
    if (!db) return;
    if (pending.length === 0) setImmediate(flush);
    pending.push(fn);
  };
  return {
    runStarted: ({ run, queueWaitMs }) =>
      write(() =>
        started.run(
          run.id,
          run.attempt,
          hostId,
          run.sessionId,
          run.executor,
          run.workerId,
          queueWaitMs,
          run.startedAt ?? new Date().toISOString(),
        ),
      ),
    runFinished: ({ run, durationMs }) =>
      write(() => finished.run(run.endedAt, run.status, run.errorCode, durationMs, run.id, run.attempt)),
    stepFinished: (e) =>
      write(() =>
        step.run(
          e.run.id,
          e.run.attempt,
          e.kind,
          e.name,
          e.status,
          e.errorCode,
          JSON.stringify(e.output),
          e.durationMs,
          new Date().toISOString(),
        ),
      ),
  };
}

/** Observers called one after the other: every observer any of them has (a new one needs no line here). */
export function combineObservers(...all: EngineObservers[]): EngineObservers {
  const combined: Record<string, (event: never) => void> = {};
  for (const observers of all) {
    for (const [name, observe] of Object.entries(observers) as [string, (event: never) => void][]) {
      const before = combined[name];
      combined[name] = before
        ? (event) => {
            before(event);
            observe(event);
          }
        : observe;
    }
  }
  return combined as EngineObservers;
}
