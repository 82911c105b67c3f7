/** Queue waits (enqueue → start) of the recent past, for the snapshot's p50/p95. */
export class QueueWaitWindow {
  private readonly samples: { at: number; ms: number }[] = [];

  constructor(
    private readonly maxSamples = 1_000,
    private readonly maxAgeMs = 5 * 60_000,
  ) {}

  record(ms: number, at: number): void {
    this.samples.push({ at, ms });
    if (this.samples.length > this.maxSamples) this.samples.shift();
  }

  /** Nearest-rank percentile of the window's samples; null when it is empty. */
  percentile(p: number, now: number): number | null {
    while (this.samples.length > 0 && now - this.samples[0]!.at > this.maxAgeMs) this.samples.shift();
    if (this.samples.length === 0) return null;
    const sorted = this.samples.map((s) => s.ms).sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  }
}
