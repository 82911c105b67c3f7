export interface Throttled {
  (): void;
  cancel(): void;
}

/**
 * Calls `fn` at most once per `ms`: at once after a quiet spell, else once when the window
 * ends, so that a burst of changes costs two calls and the last change is never left out.
 */
export function throttle(fn: () => void, ms: number): Throttled {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = () => {
    timer = undefined;
    last = Date.now();
    fn();
  };
  const throttled = () => {
    if (timer !== undefined) return;
    const wait = last + ms - Date.now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  };
  throttled.cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return throttled;
}
