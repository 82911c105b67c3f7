import type { SessionClaim } from "@oah/coordination";
import type { Timer } from "../clock";
import type { HostContext } from "../host-context";

/** What a claim ahead uses of its host. */
export type HeldClaimHost = Pick<HostContext, "clock" | "queue" | "logger" | "settling" | "observers">;

/**
 * A session claimed ahead for a slot's next run (see ClaimAheadPolicy). Taken in
 * time, it is the slot's next claim; not taken within the hold (the run in hand
 * lasts longer than its predecessors did), its run goes back to its place in the
 * session's queue and the session back to its place in the ready set, for any
 * free slot.
 */
export class HeldClaim {
  private settled = false;
  private readonly claimedAt: number;
  private readonly claim: Promise<SessionClaim | null>;
  private readonly timer: Timer;

  constructor(
    private readonly host: HeldClaimHost,
    private readonly holdMs: number,
  ) {
    this.claimedAt = host.clock.now();
    this.claim = host.queue.claim().catch((error: unknown) => {
      host.logger.warn({ err: error }, "a claim ahead failed");
      return null;
    });
    this.timer = host.clock.setTimeout(() => this.host.settling.track(this.putBack()), holdMs);
  }

  /** The claim for the slot's next run; null when it found nothing or was (or is now) put back. */
  async take(): Promise<SessionClaim | null> {
    if (this.settled) return null;
    // A process frozen past the hold (its timer not run yet) must not start a run whose
    // session lock has gone unrenewed that long.
    if (this.host.clock.now() - this.claimedAt > this.holdMs) {
      await this.putBack();
      return null;
    }
    this.settled = true;
    this.timer.cancel();
    const claim = await this.claim;
    this.host.observers.claimedAhead?.({ outcome: claim ? "taken" : "empty" });
    return claim;
  }

  /** Gives the claimed run back to its session's queue, unless taken already. */
  async putBack(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    this.timer.cancel();
    const claim = await this.claim;
    this.host.observers.claimedAhead?.({ outcome: claim ? "put_back" : "empty" });
    if (!claim) return;
    try {
      // It has not had its turn: its session takes back its place in line.
      await this.host.queue.release(claim, {
        putBack: claim.entry,
        readySince: claim.readySince,
      });
    } catch (error) {
      // The lock expires; reconcile enqueues the run again (it is still queued in the store).
      this.host.logger.warn({ err: error, sessionId: claim.sessionId }, "could not put back a claim ahead");
    }
  }
}
