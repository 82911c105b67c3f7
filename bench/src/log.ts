const started = Date.now();

/** A progress line: wall-clock time and seconds since the bench started. */
export function log(line: string): void {
  const at = new Date().toISOString().slice(11, 19);
  const since = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stdout.write(`${at} +${since}s  ${line}\n`);
}

/** Plain output (tables), no timestamp. */
export function print(line = ""): void {
  process.stdout.write(`${line}\n`);
}

export const elapsedSeconds = (): number => (Date.now() - started) / 1000;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Epoch milliseconds with a fractional part (a monotonic clock anchored at process start). */
export const preciseNow = (): number => performance.timeOrigin + performance.now();
