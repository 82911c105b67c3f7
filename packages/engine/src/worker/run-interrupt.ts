import type { Clock, Timer } from "../clock";

/** Thrown at the step boundary where an interrupted execution stops; its abort, not this, decides the run's end. */
class InterruptedAtBoundary extends Error {
  constructor() {
    super("the execution stopped at a step boundary: a later submission interrupted it");
  }
}

/**
 * The stop a later submission to the run's session asks for (ifBusy interrupt or replace,
 * docs/spec.md §5): the execution goes on to its next step boundary (the start of its next
 * step, a checkpoint of its own, a wait for a client's tool) and stops there, cancelled; a step
 * still running after the grace is cut short as a cancel cuts it. A run whose last step ends
 * first completes: nothing of it is left to interrupt.
 */
export class RunInterrupt {
  private requested = false;
  private grace: Timer | null = null;
  /** Inside a wait between steps: an interrupt stops it at once. */
  private between = 0;

  constructor(
    private readonly controller: AbortController,
    private readonly clock: Clock,
    private readonly graceMs: number,
  ) {}

  /** Asked for (by the signal, or found by the heartbeat): the first ask counts. */
  request(): void {
    if (this.requested || this.controller.signal.aborted) return;
    this.requested = true;
    if (this.between > 0) this.stop();
    else this.grace = this.clock.setTimeout(() => this.stop(), this.graceMs);
  }

  /** A step boundary: an asked-for interrupt stops the execution here. */
  boundary(): void {
    if (!this.requested) return;
    this.stop();
    throw new InterruptedAtBoundary();
  }

  /** A wait between steps (for a client's tool result): no step is cut short if an interrupt stops it. */
  async waitBetweenSteps<T>(wait: () => Promise<T>): Promise<T> {
    this.boundary();
    this.between++;
    try {
      return await wait();
    } finally {
      this.between--;
    }
  }

  /** The execution is over: no grace is left to run out. */
  dispose(): void {
    this.grace?.cancel();
  }

  private stop(): void {
    this.grace?.cancel();
    if (!this.controller.signal.aborted) this.controller.abort({ kind: "cancel" });
  }
}
