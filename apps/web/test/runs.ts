import type { Run } from "@oah/contract";

/** A completed run, changed where a test says so. */
export function run(change: Partial<Run> = {}): Run {
  return {
    id: "run_01JABCDEFGHJKMNPQRSTVWXYZ0",
    sessionId: "checkout-1",
    seq: 1,
    workspaceId: "default",
    parentRunId: null,
    priority: "normal",
    executor: "script",
    input: { steps: [] },
    output: null,
    status: "completed",
    errorCode: null,
    errorMessage: null,
    createdAt: "2026-01-31T12:00:00.000Z",
    startedAt: "2026-01-31T12:00:02.000Z",
    heartbeatAt: "2026-01-31T12:00:05.000Z",
    endedAt: "2026-01-31T12:00:12.000Z",
    cancelRequestedAt: null,
    timeoutMs: 60_000,
    workerId: "worker-1",
    attempt: 1,
    recoveryState: null,
    waitingTool: null,
    forkedFrom: null,
    ifBusy: "enqueue",
    cancelledBy: null,
    metadata: {},
    ...change,
  };
}
