import type { Clock, Timer } from "../src";

interface Pending {
  at: number;
  /** Timers due at the same moment fire in the order they were set. */
  order: number;
  callback: () => void;
  everyMs: number | null;
}

/**
 * Turns of the event loop the work a timer started is given before the next timer fires: its
 * promises settle within one, and each group commit of the store takes one more.
 */
const TURNS = 10;

async function settle(): Promise<void> {
  for (let i = 0; i < TURNS; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A clock that moves only when a test moves it. An engine on it does at once all that needs no
 * time (claims, executions, writes, wakes) and nothing that waits for time (ticks, heartbeats,
 * back-offs, deadlines, holds, drains) until the test advances the clock past it.
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly pending = new Set<Pending>();
  private order = 0;

  /** It starts at the wall clock's now, so that what the store writes looks of today. */
  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    return this.add(callback, ms, null);
  }

  setInterval(callback: () => void, ms: number): Timer {
    return this.add(callback, ms, Math.max(1, ms));
  }

  /** The timers set and not yet fired or cancelled. */
  get timers(): number {
    return this.pending.size;
  }

  /**
   * Moves time `ms` on: every timer due on the way fires at its own moment, in order, and the
   * work it started goes on before the next one fires.
   */
  async advance(ms: number): Promise<void> {
    const until = this.current + ms;
    await settle();
    for (let next = this.nextDue(until); next; next = this.nextDue(until)) {
      // A timer overdue (after a jump) fires late, as a frozen process's do: time never goes back.
      this.current = Math.max(this.current, next.at);
      if (next.everyMs === null) this.pending.delete(next);
      else next.at = this.current + next.everyMs;
      next.callback();
      await settle();
    }
    this.current = until;
  }

  /** Moves time `ms` on and fires nothing: a process frozen that long, whose timers have not run yet. */
  jump(ms: number): void {
    this.current += ms;
  }

  /** Advances `stepMs` at a time until `work` settles (for at most `limitMs`); what it resolves with. */
  async advanceUntil<T>(work: Promise<T>, stepMs: number, limitMs = 600_000): Promise<T> {
    let settled = false;
    const done = () => {
      settled = true;
    };
    work.then(done, done);
    for (let moved = 0; ; moved += stepMs) {
      await settle();
      if (settled) return work;
      if (moved >= limitMs) throw new Error(`still unsettled after ${limitMs} ms of the manual clock`);
      await this.advance(stepMs);
    }
  }

  private add(callback: () => void, ms: number, everyMs: number | null): Timer {
    const timer: Pending = { at: this.current + Math.max(0, ms), order: ++this.order, callback, everyMs };
    this.pending.add(timer);
    return { cancel: () => this.pending.delete(timer) };
  }

  private nextDue(until: number): Pending | undefined {
    let next: Pending | undefined;
    for (const timer of this.pending) {
      if (timer.at > until) continue;
      if (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order)) next = timer;
    }
    return next;
  }
}
