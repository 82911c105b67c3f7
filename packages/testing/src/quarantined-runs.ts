import pg from "pg";

/**
 * Runs of workspace `ws` written straight into a PostgreSQL store, as recovery would have left them: quarantined
 * (`worker_recovery_failed`, `max_attempts_exhausted`, a dead letter), one per session; plus
 * failures recovery never touched and completed runs, which a requeue refuses.
 */
export async function loadQuarantinedRuns(
  url: string,
  ws: string,
  {
    quarantined,
    plainFailed = 0,
    completed = 0,
  }: { quarantined: number; plainFailed?: number; completed?: number },
): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const at = Date.now() - 60_000;
    const metadata = JSON.stringify({
      recoveryAttempts: 3,
      recovery: {
        state: "quarantined",
        strategy: "requeue_running",
        attempts: 3,
        maxAttempts: 3,
        lastOutcome: { from: "running", to: "failed" },
        lastRecoveredBy: "test-host",
        lastRecoveredAt: new Date(at).toISOString(),
        reason: "max_attempts_exhausted",
        manualRequeueCount: 0,
        lastManualRequeueAt: null,
        lastManualRequeueBy: null,
        deadLetter: {
          status: "quarantined",
          reason: "max_attempts_exhausted",
          at: new Date(at).toISOString(),
        },
      },
    });
    const total = quarantined + plainFailed + completed;
    await db.query(
      `INSERT INTO sessions (id, workspace_id, last_seq, created_at, updated_at)
       SELECT $1 || '-' || i, $1, 1, $2::bigint, $2::bigint FROM generate_series(1, $3::int) AS i`,
      [ws, at, total],
    );
    await db.query(
      `INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, priority, executor, input, status, error_code,
        error_message, created_at, enqueued_at, started_at, ended_at, timeout_ms, worker_id, attempt, recovery_state,
        recovery_reason, recovered_at, metadata, updated_at)
       SELECT 'run_' || upper(lpad(to_hex($2::bigint * 100000 + i), 26, '0')), $1 || '-' || i, 1, 1, $1,
         'normal', 'script', '{"steps":[]}'::jsonb,
         CASE WHEN i <= $3::int + $4::int THEN 'failed' ELSE 'completed' END,
         CASE WHEN i <= $3::int THEN 'worker_recovery_failed' WHEN i <= $3::int + $4::int THEN 'tool_failed' END,
         CASE WHEN i <= $3::int + $4::int THEN 'failed in the test' END,
         $2::bigint + i, $2::bigint + i, $2::bigint + i, $2::bigint + i + 1, 60000, 'test-host/w1', 3,
         CASE WHEN i <= $3::int THEN 'quarantined' END, CASE WHEN i <= $3::int THEN 'max_attempts_exhausted' END,
         CASE WHEN i <= $3::int THEN $2::bigint + i END,
         CASE WHEN i <= $3::int THEN $6::jsonb ELSE '{}'::jsonb END, $2::bigint + i
       FROM generate_series(1, $5::int) AS i`,
      [ws, at, quarantined, plainFailed, total, metadata],
    );
  } finally {
    await db.end();
  }
}
