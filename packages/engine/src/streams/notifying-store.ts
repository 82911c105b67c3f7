import type { Run, RunSummary } from "@oah/contract";
import type { EventBus } from "@oah/coordination";
import type { RunEventType } from "@oah/core";
import type { Claim, RunOutcome, RunStore, StartResult } from "@oah/store";

/** How many executing runs' sessions are remembered (one host executes far fewer at once). */
const REMEMBERED_RUNS = 10_000;

/**
 * The store, announcing on the event bus the sessions whose events each write committed,
 * so that streams in any process read them at once. Writes made by a claim name only the
 * run: its session is remembered from the start of the run, or read once when this
 * process did not start it.
 */
export function notifyingStore(store: RunStore, bus: EventBus): RunStore {
  const sessionOf = new Map<string, string>();
  const remember = (run: Run) => {
    if (sessionOf.size >= REMEMBERED_RUNS) sessionOf.delete(sessionOf.keys().next().value as string);
    sessionOf.set(run.id, run.sessionId);
  };
  const written = (sessionIds: string[]) => {
    if (sessionIds.length > 0) bus.publish({ kind: "written", sessionIds });
  };
  const wroteFor = (run: Pick<RunSummary, "sessionId"> | null | undefined) => {
    if (run) written([run.sessionId]);
  };
  /** A run started or resumed here: its later writes name only it, so its session is remembered. */
  const started = (result: StartResult): StartResult => {
    if (result.kind === "started") {
      remember(result.run);
      wroteFor(result.run);
    }
    return result;
  };
  const wroteByClaim = (claim: Claim, wrote: boolean) => {
    if (!wrote) return;
    const sessionId = sessionOf.get(claim.runId);
    if (sessionId) return written([sessionId]);
    store.getRun(claim.runId).then(wroteFor, () => {});
  };

  const overrides: Partial<RunStore> = {
    async createRun(run) {
      const made = await store.createRun(run);
      if (made.created) wroteFor(made.run);
      return made;
    },
    async createRuns(runs, options) {
      const made = await store.createRuns(runs, options);
      written([...new Set(made.flatMap((m) => ("created" in m && m.created ? [m.run.sessionId] : [])))]);
      return made;
    },
    async startRun(claim, workerId) {
      return started(await store.startRun(claim, workerId));
    },
    async resumeRun(claim, workerId) {
      return started(await store.resumeRun(claim, workerId));
    },
    async parkRun(claim, park) {
      const parked = await store.parkRun(claim, park);
      wroteByClaim(claim, parked === "parked");
      return parked;
    },
    async expireParkedRuns(limit) {
      const expired = await store.expireParkedRuns(limit);
      written([...new Set(expired.map((r) => r.sessionId))]);
      return expired;
    },
    async finishRun(claim: Claim, outcome: RunOutcome) {
      const run = await store.finishRun(claim, outcome);
      wroteFor(run);
      if (run) sessionOf.delete(run.id);
      return run;
    },
    async appendEvent(claim: Claim, type: RunEventType, data?: Record<string, unknown>) {
      const wrote = await store.appendEvent(claim, type, data);
      wroteByClaim(claim, wrote);
      return wrote;
    },
    async waitForTool(claim, name) {
      const wrote = await store.waitForTool(claim, name);
      wroteByClaim(claim, wrote);
      return wrote;
    },
    async takeToolResult(claim) {
      const take = await store.takeToolResult(claim);
      wroteByClaim(claim, take.kind === "taken");
      return take;
    },
    async deliverToolResult(runId, name, output) {
      const delivery = await store.deliverToolResult(runId, name, output);
      if (delivery.kind === "accepted") wroteFor(delivery.run);
      return delivery;
    },
    async requestCancel(runId) {
      const request = await store.requestCancel(runId);
      if (request.kind === "cancelled" || request.kind === "requested") wroteFor(request.run);
      return request;
    },
    async requeueRuns(runIds, request) {
      const outcomes = await store.requeueRuns(runIds, request);
      written([...new Set(outcomes.flatMap((o) => (o.ok ? [o.queueEntry.sessionId] : [])))]);
      return outcomes;
    },
    async recoverRun(request) {
      const recovered = await store.recoverRun(request);
      wroteFor(recovered?.run);
      return recovered;
    },
  };
  // Every other method is the store's own, bound to it.
  return new Proxy(store, {
    get(target, key, receiver) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof RunStore];
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
