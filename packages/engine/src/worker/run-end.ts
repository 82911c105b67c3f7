import type { Run, RunSummary } from "@oah/contract";
import type { SessionClaim } from "@oah/coordination";
import type { Claim, RunOutcome } from "@oah/store";
import type { AbortReason } from "../abort";
import { sleep } from "../clock";
import type { HookTarget } from "../hooks/hook-runner";
import type { HostContext } from "../host-context";
import { outcomeOf, type Settled } from "./outcome";

/** What the end of a run uses of its host. */
export type RunEndHost = Pick<
  HostContext,
  "clock" | "store" | "queue" | "hooks" | "active" | "observers" | "logger" | "finishRetryMs" | "settling"
>;

/** An execution whose executor is done: what it ran, under which claim, and how it stopped. */
export interface EndedExecution {
  run: Run;
  /** The session's claim in the queue; its token fences the store's writes too. */
  claim: SessionClaim;
  settled: Settled;
  /** Why its execution was aborted, if it was. */
  abort: AbortReason | undefined;
  /** What the hooks of the run were given (its journal, its workspace). */
  hookTarget: HookTarget;
  /** When the execution began, for the run's duration. */
  startedAt: number;
}

/**
 * The end of one execution (docs/spec.md §6), in the order it must happen. Its slot is free as
 * soon as this returns: the worker claims its next session. In the background, seen through
 * before the host stops (its settling), come the hooks after the run, the terminal write
 * (retried through a short store outage, group-committed with the next runs' starts), and the
 * release of the session, which must follow the terminal write so that its next run finds this
 * one ended.
 */
export function endRun(host: RunEndHost, ended: EndedExecution): void {
  host.settling.track(settle(host, ended).finally(() => release(host, ended.claim)));
}

async function settle(host: RunEndHost, ended: EndedExecution): Promise<void> {
  const { run, abort, settled } = ended;
  // Hooks after the run are not cut short by its cancel or timeout; a fenced run writes nothing more,
  // and a parked one has not finished.
  if (abort?.kind !== "fenced" && abort?.kind !== "shutdown" && abort?.kind !== "parked") {
    await host.hooks
      .fire("run.finished", { ...ended.hookTarget, signal: new AbortController().signal }, { ok: settled.ok })
      .catch((err: unknown) =>
        host.logger.warn({ err, runId: run.id }, "a run.finished hook could not be recorded"),
      );
  }
  host.active.delete(run.id);

  const outcome = outcomeOf(settled, abort, run.timeoutMs);
  if (!outcome) {
    if (abort?.kind === "parked") host.logger.debug({ runId: run.id }, "run parked until its tool result");
    else
      host.logger.warn({ runId: run.id, reason: abort?.kind }, "execution stopped without a terminal write");
    return;
  }
  try {
    const written = await finish(host, { runId: run.id, token: ended.claim.token }, outcome);
    if (!written) {
      host.logger.warn(
        { runId: run.id },
        "run was taken over before it ended here; its result was discarded",
      );
      return;
    }
    host.observers.runFinished?.({ run: written, durationMs: host.clock.now() - ended.startedAt });
  } catch (error) {
    host.logger.error(
      { err: error, runId: run.id },
      "could not record the end of a run; recovery will handle it",
    );
  }
}

/** The terminal write must not be lost to a short store outage: retry it for a while. */
async function finish(host: RunEndHost, claim: Claim, outcome: RunOutcome): Promise<RunSummary | null> {
  const deadline = host.clock.now() + host.finishRetryMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await host.store.finishRun(claim, outcome);
    } catch (error) {
      if (host.clock.now() >= deadline) throw error;
      host.logger.warn({ err: error, runId: claim.runId }, "could not record the end of a run; retrying");
      await sleep(host.clock, delay);
    }
  }
}

/** The session goes on with its next run, or to another host; if the queue cannot be told, its lock expires. */
async function release(host: RunEndHost, claim: SessionClaim): Promise<void> {
  await host.queue
    .release(claim)
    .catch((error: unknown) =>
      host.logger.warn(
        { err: error, sessionId: claim.sessionId },
        "could not release a session; its lock will expire",
      ),
    );
}
