/** A timer set on a clock; cancelling one that has fired already does nothing. */
export interface Timer {
  cancel(): void;
}

/**
 * The time of the engine: what its parts read as now, and their timers (the periodic tasks,
 * back-offs, deadlines, cooldowns, holds and drains). `createEngine` takes one and every part
 * takes it from there, so that a test can move time itself instead of waiting for it.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, `ms` from now. */
  setTimeout(callback: () => void, ms: number): Timer;
  /** Calls `callback` every `ms`; such a timer never keeps the process alive by itself. */
  setInterval(callback: () => void, ms: number): Timer;
}

/** The wall clock and Node's timers: the engine's clock unless it is given another. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timer) };
  },
  setInterval(callback, ms) {
    const timer = setInterval(callback, ms);
    timer.unref();
    return { cancel: () => clearInterval(timer) };
  },
};

/** Resolves `ms` from now on `clock`, or at once when `signal` aborts (never rejects). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = clock.setTimeout(done, ms);
    function done() {
      timer.cancel();
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Whether `work` settles within `ms` on `clock` (never rejects); no timer is left behind either way. */
export function settlesWithin(clock: Clock, work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => resolve(false), ms);
    const done = () => {
      timer.cancel();
      resolve(true);
    };
    work.then(done, done);
  });
}
